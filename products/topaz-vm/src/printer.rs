//! `write` and `display` forms, and the structured projection of result values.

use crate::json::write_str;
use crate::num::format_number;
use crate::unicode;
use crate::value::V;
use std::collections::{HashMap, HashSet};

fn char_name(cp: u32) -> Option<&'static str> {
    Some(match cp {
        0 => "null",
        7 => "alarm",
        8 => "backspace",
        9 => "tab",
        10 => "newline",
        13 => "return",
        27 => "escape",
        32 => "space",
        127 => "delete",
        _ => return None,
    })
}

pub fn write_char(cp: u32) -> String {
    if let Some(n) = char_name(cp) {
        return format!("#\\{}", n);
    }
    let c = char::from_u32(cp).unwrap_or('\u{fffd}');
    // Blank, attaching, private-use and (in the contract's Unicode version) unassigned
    // characters print as #\xHH; the table is the one engines/lispex/printer.ts reads.
    if cp < 0x20 || (cp >= 0x80 && unicode::is_invisible(cp)) {
        return format!("#\\x{:x}", cp);
    }
    format!("#\\{}", c)
}

pub fn write_string_literal(s: &str, quote: char) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        let cp = c as u32;
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            '"' if quote == '"' => out.push_str("\\\""),
            '|' if quote == '|' => out.push_str("\\|"),
            _ if cp < 0x20 || cp == 0x7f => out.push_str(&format!("\\x{:x};", cp)),
            _ => out.push(c),
        }
    }
    out.push(quote);
    out
}

fn symbol_needs_bars(name: &str) -> bool {
    if name.is_empty() || name == "." || name.starts_with('#') {
        return true;
    }
    if name.chars().any(|c| unicode::is_white_space(c as u32) || c == '\u{feff}' || "()\";'`,|[]{}".contains(c) || (c as u32) < 0x20 || c as u32 == 0x7f) {
        return true;
    }
    if let Ok(Some(_)) | Err(()) = crate::num::parse_number(name, 10) {
        return true;
    }
    let b = name.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
    }
    i < b.len() && b[i].is_ascii_digit()
}

pub fn write_symbol(name: &str) -> String {
    if symbol_needs_bars(name) {
        write_string_literal(name, '|')
    } else {
        name.to_string()
    }
}

pub struct Printer<'a> {
    pub prim_names: &'a [String],
    pub write: bool,
    pub out: String,
    /// Compound values that close a cycle: they print with R7RS datum labels (`#0=` … `#0#`).
    targets: HashSet<usize>,
    /// Labels given so far, in order of first appearance.
    labels: HashMap<usize, usize>,
}

/// The identity of a compound value (pair, vector, error object), or None for anything else.
fn compound_key(v: &V) -> Option<usize> {
    match v {
        V::Pair(rc) => Some(std::rc::Rc::as_ptr(rc) as usize),
        V::Vector(rc) => Some(std::rc::Rc::as_ptr(rc) as *const u8 as usize),
        V::Err(rc) => Some(std::rc::Rc::as_ptr(rc) as usize),
        _ => None,
    }
}

fn children(v: &V) -> Vec<V> {
    match v {
        V::Pair(rc) => vec![rc.car.clone(), rc.cdr.clone()],
        V::Vector(rc) => rc.borrow().clone(),
        V::Err(rc) => rc.irritants.clone(),
        _ => Vec::new(),
    }
}

/// Whether a vector is reachable from `root`. Pairs are immutable, so without a vector the value
/// is acyclic and the cycle pass is skipped (as in engines/lispex/printer.ts).
fn contains_vector(root: &V) -> bool {
    let mut stack = vec![root.clone()];
    let mut seen: HashSet<usize> = HashSet::new();
    while let Some(mut v) = stack.pop() {
        while let V::Pair(rc) = &v {
            let key = std::rc::Rc::as_ptr(rc) as usize;
            if !seen.insert(key) {
                break;
            }
            stack.push(rc.car.clone());
            let next = rc.cdr.clone();
            v = next;
        }
        match &v {
            V::Vector(_) => return true,
            V::Err(e) => stack.extend(e.irritants.iter().cloned()),
            _ => {}
        }
    }
    false
}

/// Compound values reached again while still on the depth-first path (children in order: car
/// then cdr, vector items, error irritants): exactly the values that need datum labels. The same
/// walk as `cycleTargets` in engines/lispex/printer.ts, so both routes label the same values.
fn cycle_targets(root: &V) -> HashSet<usize> {
    let mut targets = HashSet::new();
    let root_key = match compound_key(root) {
        Some(k) => k,
        None => return targets,
    };
    if !contains_vector(root) {
        return targets;
    }
    // true = on the path, false = finished
    let mut state: HashMap<usize, bool> = HashMap::new();
    let mut stack: Vec<(usize, Vec<V>, usize)> = Vec::new();
    state.insert(root_key, true);
    stack.push((root_key, children(root), 0));
    while let Some(top) = stack.last_mut() {
        if top.2 >= top.1.len() {
            state.insert(top.0, false);
            stack.pop();
            continue;
        }
        let kid = top.1[top.2].clone();
        top.2 += 1;
        let key = match compound_key(&kid) {
            Some(k) => k,
            None => continue,
        };
        match state.get(&key) {
            Some(true) => {
                targets.insert(key);
            }
            Some(false) => {}
            None => {
                state.insert(key, true);
                let kids = children(&kid);
                stack.push((key, kids, 0));
            }
        }
    }
    targets
}

impl<'a> Printer<'a> {
    pub fn new(prim_names: &'a [String], write: bool) -> Printer<'a> {
        Printer {
            prim_names,
            write,
            out: String::new(),
            targets: HashSet::new(),
            labels: HashMap::new(),
        }
    }

    /// Print one value as a whole (labels are numbered from 0 within it).
    pub fn print_root(&mut self, v: &V) {
        if let V::Multi(vs) = v {
            // Not a first-class value (diagnostics only): each value printed as a whole.
            for (i, x) in vs.iter().enumerate() {
                if i > 0 {
                    self.out.push(' ');
                }
                self.print_root(x);
            }
            return;
        }
        self.targets = cycle_targets(v);
        self.labels.clear();
        self.print(v);
    }

    /// `#n#` for a labelled value already printed (true: nothing more to print), `#n=` before the
    /// first appearance of a cycle target.
    fn label(&mut self, v: &V) -> bool {
        if self.targets.is_empty() {
            return false;
        }
        let key = match compound_key(v) {
            Some(k) if self.targets.contains(&k) => k,
            _ => return false,
        };
        if let Some(n) = self.labels.get(&key) {
            self.out.push_str(&format!("#{}#", n));
            return true;
        }
        let n = self.labels.len();
        self.labels.insert(key, n);
        self.out.push_str(&format!("#{}=", n));
        false
    }

    pub fn print(&mut self, v: &V) {
        match v {
            V::Int(_) | V::Big(_) | V::Rat(_) | V::Flo(_) => {
                let s = format_number(v, 10);
                self.out.push_str(&s)
            }
            V::Bool(b) => self.out.push_str(if *b { "#t" } else { "#f" }),
            V::Nil => self.out.push_str("()"),
            V::Char(cp) => {
                if self.write {
                    let s = write_char(*cp);
                    self.out.push_str(&s)
                } else {
                    self.out.push(char::from_u32(*cp).unwrap_or('\u{fffd}'))
                }
            }
            V::Str(s) => {
                if self.write {
                    let t = write_string_literal(s, '"');
                    self.out.push_str(&t)
                } else {
                    self.out.push_str(s)
                }
            }
            V::Sym(s) => {
                if self.write {
                    let t = write_symbol(s);
                    self.out.push_str(&t)
                } else {
                    self.out.push_str(s)
                }
            }
            V::Pair(_) => {
                if self.label(v) {
                    return;
                }
                self.out.push('(');
                let mut p = v.clone();
                let mut first = true;
                loop {
                    match p {
                        // A labelled pair in the spine prints as ` . #n#` / ` . #n=(…)`.
                        V::Pair(_) if !first && !self.targets.is_empty() && compound_key(&p).is_some_and(|k| self.targets.contains(&k)) => {
                            self.out.push_str(" . ");
                            self.print(&p);
                            break;
                        }
                        V::Pair(rc) => {
                            if !first {
                                self.out.push(' ');
                            }
                            first = false;
                            self.print(&rc.car);
                            p = rc.cdr.clone();
                        }
                        V::Nil => break,
                        other => {
                            self.out.push_str(" . ");
                            self.print(&other);
                            break;
                        }
                    }
                }
                self.out.push(')');
            }
            V::Vector(items) => {
                if self.label(v) {
                    return;
                }
                self.out.push_str("#(");
                let items = items.borrow().clone();
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(' ');
                    }
                    self.print(x);
                }
                self.out.push(')');
            }
            V::Bytes(b) => {
                self.out.push_str("#u8(");
                let parts: Vec<String> = b.iter().map(|x| x.to_string()).collect();
                self.out.push_str(&parts.join(" "));
                self.out.push(')');
            }
            V::Unspec => self.out.push_str("#<unspecified>"),
            V::Prim(i) => {
                let name = self.prim_names.get(*i as usize).cloned().unwrap_or_default();
                self.out.push_str(&format!("#<procedure {}>", name))
            }
            V::Closure(c) => match &c.code.name {
                Some(n) => self.out.push_str(&format!("#<procedure {}>", n)),
                None => self.out.push_str("#<procedure>"),
            },
            V::Cont(_) => self.out.push_str("#<continuation>"),
            V::Err(e) => {
                if self.label(v) {
                    return;
                }
                self.out.push_str("#<error-object ");
                let m = write_string_literal(&e.message, '"');
                self.out.push_str(&m);
                for x in &e.irritants {
                    self.out.push(' ');
                    self.print(x);
                }
                self.out.push('>');
            }
            V::Multi(vs) => {
                for (i, x) in vs.iter().enumerate() {
                    if i > 0 {
                        self.out.push(' ');
                    }
                    self.print(x);
                }
            }
            V::Unassigned => self.out.push_str("#<unknown>"),
        }
    }
}

pub fn write_value(names: &[String], v: &V) -> String {
    let mut p = Printer::new(names, true);
    p.print_root(v);
    p.out
}

pub fn display_value(names: &[String], v: &V) -> String {
    let mut p = Printer::new(names, false);
    p.print_root(v);
    p.out
}

const PROJECTION_DEPTH_LIMIT: usize = 500;

/// The structured JSON projection of a value; returns whether it is portable.
pub fn project(v: &V, out: &mut String, seen: &mut Vec<usize>, depth: usize) -> bool {
    if depth > PROJECTION_DEPTH_LIMIT {
        out.push_str("{\"kind\":\"too-deep\"}");
        return false;
    }
    match v {
        V::Int(_) | V::Big(_) => {
            out.push_str("{\"kind\":\"integer\",\"value\":");
            write_str(out, &format_number(v, 10));
            out.push('}');
            true
        }
        V::Bool(b) => {
            out.push_str(&format!("{{\"kind\":\"boolean\",\"value\":{}}}", b));
            true
        }
        V::Nil => {
            out.push_str("{\"kind\":\"nil\"}");
            true
        }
        V::Rat(r) => {
            out.push_str(&format!(
                "{{\"kind\":\"rational\",\"numerator\":\"{}\",\"denominator\":\"{}\"}}",
                r.0.to_string_radix(10),
                r.1.to_string_radix(10)
            ));
            true
        }
        V::Flo(x) => {
            out.push_str(&format!("{{\"kind\":\"finite-real\",\"value\":{:?}}}", x));
            true
        }
        V::Char(cp) => {
            out.push_str("{\"kind\":\"character\",\"value\":");
            write_str(out, &char::from_u32(*cp).unwrap_or('\u{fffd}').to_string());
            out.push_str(&format!(",\"code_point\":{}}}", cp));
            true
        }
        V::Sym(s) => {
            out.push_str("{\"kind\":\"symbol\",\"name\":");
            write_str(out, s);
            out.push('}');
            true
        }
        V::Str(s) => {
            out.push_str("{\"kind\":\"string\",\"value\":");
            write_str(out, s);
            out.push('}');
            true
        }
        V::Bytes(b) => {
            let parts: Vec<String> = b.iter().map(|x| x.to_string()).collect();
            out.push_str(&format!("{{\"kind\":\"bytevector\",\"bytes\":[{}]}}", parts.join(",")));
            true
        }
        V::Pair(_) => {
            let mut items = String::new();
            let mut portable = true;
            let mut p = v.clone();
            let mut first = true;
            loop {
                match p {
                    V::Pair(rc) => {
                        if !first {
                            items.push(',');
                        }
                        first = false;
                        portable &= project(&rc.car, &mut items, seen, depth + 1);
                        p = rc.cdr.clone();
                    }
                    _ => break,
                }
            }
            if p.is_nil() {
                out.push_str(&format!("{{\"kind\":\"proper-list\",\"items\":[{}]}}", items));
            } else {
                let mut tail = String::new();
                portable &= project(&p, &mut tail, seen, depth + 1);
                out.push_str(&format!("{{\"kind\":\"improper-list\",\"items\":[{}],\"tail\":{}}}", items, tail));
            }
            portable
        }
        V::Vector(rc) => {
            let key = std::rc::Rc::as_ptr(rc) as usize;
            if seen.contains(&key) {
                out.push_str("{\"kind\":\"cyclic\"}");
                return false;
            }
            seen.push(key);
            let mut items = String::new();
            let mut portable = true;
            for (i, x) in rc.borrow().iter().enumerate() {
                if i > 0 {
                    items.push(',');
                }
                portable &= project(x, &mut items, seen, depth + 1);
            }
            seen.pop();
            out.push_str(&format!("{{\"kind\":\"vector\",\"items\":[{}]}}", items));
            portable
        }
        V::Prim(_) | V::Closure(_) => {
            out.push_str("{\"kind\":\"procedure\"}");
            false
        }
        V::Cont(_) => {
            out.push_str("{\"kind\":\"continuation\"}");
            false
        }
        V::Err(_) => {
            out.push_str("{\"kind\":\"error-object\"}");
            false
        }
        _ => {
            out.push_str("{\"kind\":\"unspecified\"}");
            false
        }
    }
}
