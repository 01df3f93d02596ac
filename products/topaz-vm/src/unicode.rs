//! Unicode answers of the contract's version, read from our own tables (`unicode_tables.rs`,
//! generated from the UCD by scripts/generate-unicode-tables.mjs together with the TypeScript
//! copy the built-in routes use), never from `char::to_lowercase`/`is_alphabetic`, whose Unicode
//! version is whatever the compiling rustc ships. Same definitions as engines/lispex/chars.ts and
//! strings.ts: predicates = Alphabetic, general category Nd, White_Space, Uppercase, Lowercase;
//! char mappings = UnicodeData's simple mappings and CaseFolding's simple folding (C+S); string
//! mappings = the full mappings (SpecialCasing's unconditional entries, CaseFolding C+F) with
//! Final_Sigma in downcasing.

use crate::unicode_tables as t;

pub use crate::unicode_tables::UNICODE_VERSION;

fn in_ranges(table: &[(u32, u32)], cp: u32) -> bool {
    // The last range starting at or before cp.
    let i = table.partition_point(|&(start, _)| start <= cp);
    i > 0 && cp < table[i - 1].1
}

fn simple_map(table: &[(u32, u32)], cp: u32) -> u32 {
    match table.binary_search_by_key(&cp, |&(from, _)| from) {
        Ok(i) => table[i].1,
        Err(_) => cp,
    }
}

pub fn is_alphabetic(cp: u32) -> bool {
    if cp < 128 {
        return (cp as u8).is_ascii_alphabetic();
    }
    in_ranges(t::ALPHABETIC, cp)
}
pub fn is_numeric(cp: u32) -> bool {
    if cp < 128 {
        return (cp as u8).is_ascii_digit();
    }
    in_ranges(t::NUMERIC, cp)
}
pub fn is_white_space(cp: u32) -> bool {
    if cp < 128 {
        return cp == 32 || (9..=13).contains(&cp);
    }
    in_ranges(t::WHITE_SPACE, cp)
}
pub fn is_upper_case(cp: u32) -> bool {
    if cp < 128 {
        return (cp as u8).is_ascii_uppercase();
    }
    in_ranges(t::UPPERCASE, cp)
}
pub fn is_lower_case(cp: u32) -> bool {
    if cp < 128 {
        return (cp as u8).is_ascii_lowercase();
    }
    in_ranges(t::LOWERCASE, cp)
}
/// Non-ASCII characters `write` prints as `#\xHH`: White_Space, Cc, Cf, M*, Zl, Zp, Co, Cn.
pub fn is_invisible(cp: u32) -> bool {
    in_ranges(t::INVISIBLE, cp)
}

pub fn upcase(cp: u32) -> u32 {
    if cp < 128 {
        return (cp as u8).to_ascii_uppercase() as u32;
    }
    simple_map(t::SIMPLE_UPPER, cp)
}
pub fn downcase(cp: u32) -> u32 {
    if cp < 128 {
        return (cp as u8).to_ascii_lowercase() as u32;
    }
    simple_map(t::SIMPLE_LOWER, cp)
}
/// Simple case folding (ſ -> s, ς -> σ, Cherokee small letters -> capital; ß stays ß).
pub fn foldcase(cp: u32) -> u32 {
    if cp < 128 {
        return (cp as u8).to_ascii_lowercase() as u32;
    }
    simple_map(t::SIMPLE_FOLD, cp)
}

fn push_cp(out: &mut String, cp: u32) {
    // Every table entry is a scalar value (the generator reads them from the UCD).
    out.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
}

fn push_full(full: &[(u32, [u32; 3])], simple: &[(u32, u32)], cp: u32, out: &mut String) {
    match full.binary_search_by_key(&cp, |&(from, _)| from) {
        Ok(i) => {
            for &x in full[i].1.iter().filter(|&&x| x != 0) {
                push_cp(out, x);
            }
        }
        Err(_) => push_cp(out, simple_map(simple, cp)),
    }
}

fn is_cased(cp: u32) -> bool {
    in_ranges(t::CASED, cp)
}
fn is_case_ignorable(cp: u32) -> bool {
    in_ranges(t::CASE_IGNORABLE, cp)
}

/// Unicode's Final_Sigma at index k: skipping case-ignorable scalars, a cased one comes before and
/// none comes after (case-ignorable tested first, as strings.ts does).
fn is_final_sigma(all: &[u32], k: usize) -> bool {
    let before = all[..k].iter().rev().find(|&&c| !is_case_ignorable(c));
    if !matches!(before, Some(&c) if is_cased(c)) {
        return false;
    }
    let after = all[k + 1..].iter().find(|&&c| !is_case_ignorable(c));
    !matches!(after, Some(&c) if is_cased(c))
}

pub fn upcase_string(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_uppercase();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        push_full(t::FULL_UPPER, t::SIMPLE_UPPER, c as u32, &mut out);
    }
    out
}

pub fn downcase_string(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    let all: Vec<u32> = s.chars().map(|c| c as u32).collect();
    let mut out = String::with_capacity(s.len());
    for (k, &cp) in all.iter().enumerate() {
        if cp == 0x3a3 {
            push_cp(&mut out, if is_final_sigma(&all, k) { 0x3c2 } else { 0x3c3 });
        } else {
            push_full(t::FULL_LOWER, t::SIMPLE_LOWER, cp, &mut out);
        }
    }
    out
}

/// Full case folding: "Straße" and "STRASSE" both fold to "strasse", "ẞ" to "ss", "ſ" to "s".
pub fn foldcase_string(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        push_full(t::FULL_FOLD, t::SIMPLE_FOLD, c as u32, &mut out);
    }
    out
}
