//! The numeric tower: fixnum (i64), bignum, exact rational, finite flonum. Mixed exact/inexact
//! arithmetic rounds the exact operand to a double; comparisons across exactness are exact.

use crate::bigint::{scale2, Big};
use crate::value::{err, type_err, V, R};
use std::cmp::Ordering;
use std::rc::Rc;

pub fn is_num(v: &V) -> bool {
    matches!(v, V::Int(_) | V::Big(_) | V::Rat(_) | V::Flo(_))
}

pub fn check_num(who: &str, v: &V) -> R<()> {
    if is_num(v) {
        Ok(())
    } else {
        type_err(who, "number", v)
    }
}

pub fn flo(x: f64) -> R<V> {
    if x.is_finite() {
        Ok(V::Flo(x))
    } else {
        err("E314", "non-finite inexact number".to_string(), vec![])
    }
}

pub fn big_of(v: &V) -> Big {
    match v {
        V::Int(i) => Big::from_i64(*i),
        V::Big(b) => (**b).clone(),
        _ => Big::zero(),
    }
}

/// Numerator and denominator of an exact number.
fn nd(v: &V) -> (Big, Big) {
    match v {
        V::Rat(r) => (r.0.clone(), r.1.clone()),
        _ => (big_of(v), Big::from_i64(1)),
    }
}

pub fn make_rat(mut n: Big, mut d: Big) -> V {
    if d.neg {
        n = n.neg();
        d = d.neg();
    }
    let g = n.gcd(&d);
    if !(g.mag.len() == 1 && g.mag[0] == 1) && !g.is_zero() {
        n = n.divrem(&g).0;
        d = d.divrem(&g).0;
    }
    if d.mag.len() == 1 && d.mag[0] == 1 {
        V::from_big(n)
    } else {
        V::Rat(Rc::new((n, d)))
    }
}

/// Nearest double to n/d (d > 0); may be infinite.
fn ratio_to_f64(n: &Big, d: &Big) -> f64 {
    let neg = n.neg;
    let n = n.abs();
    let two53 = 1u64 << 53;
    let r = if n.bit_len() <= 53 && d.bit_len() <= 53 && n.low_u64() <= two53 && d.low_u64() <= two53 {
        n.low_u64() as f64 / d.low_u64() as f64
    } else {
        let shift: i64 = 66 - (n.bit_len() as i64 - d.bit_len() as i64);
        let (q, r) = if shift >= 0 { n.shl(shift as usize).divrem(d) } else { n.divrem(&d.shl((-shift) as usize)) };
        let mut q = q;
        if !r.is_zero() {
            if q.mag.is_empty() {
                q.mag.push(1);
            } else {
                q.mag[0] |= 1;
            }
        }
        scale2(q.to_f64(), -shift)
    };
    if neg {
        -r
    } else {
        r
    }
}

pub fn to_f64(v: &V) -> f64 {
    match v {
        V::Int(i) => *i as f64,
        V::Big(b) => b.to_f64(),
        V::Flo(x) => *x,
        V::Rat(r) => ratio_to_f64(&r.0, &r.1),
        _ => f64::NAN,
    }
}

/// Exact value of a finite double.
pub fn f64_to_exact(x: f64) -> V {
    if x == 0.0 {
        return V::Int(0);
    }
    let bits = x.to_bits();
    let neg = bits >> 63 == 1;
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (m, e) = if exp == 0 { (frac, -1074) } else { (frac | (1u64 << 52), exp - 1075) };
    let mut mb = Big::from_u64(m);
    if neg {
        mb = mb.neg();
    }
    if e >= 0 {
        V::from_big(mb.shl(e as usize))
    } else {
        make_rat(mb, Big::from_i64(1).shl((-e) as usize))
    }
}

pub fn to_exact(v: &V) -> V {
    match v {
        V::Flo(x) => f64_to_exact(*x),
        _ => v.clone(),
    }
}

pub fn add(a: &V, b: &V) -> R<V> {
    if let (V::Int(x), V::Int(y)) = (a, b) {
        if let Some(r) = x.checked_add(*y) {
            return Ok(V::Int(r));
        }
    }
    if matches!(a, V::Flo(_)) || matches!(b, V::Flo(_)) {
        return flo(to_f64(a) + to_f64(b));
    }
    if matches!(a, V::Rat(_)) || matches!(b, V::Rat(_)) {
        let (an, ad) = nd(a);
        let (bn, bd) = nd(b);
        return Ok(make_rat(an.mul(&bd).add(&bn.mul(&ad)), ad.mul(&bd)));
    }
    Ok(V::from_big(big_of(a).add(&big_of(b))))
}

pub fn negate(a: &V) -> V {
    match a {
        V::Int(x) => match x.checked_neg() {
            Some(r) => V::Int(r),
            None => V::from_big(Big::from_i64(*x).neg()),
        },
        V::Big(b) => V::from_big(b.neg()),
        V::Flo(x) => V::Flo(-x),
        V::Rat(r) => V::Rat(Rc::new((r.0.neg(), r.1.clone()))),
        _ => a.clone(),
    }
}

pub fn sub(a: &V, b: &V) -> R<V> {
    if let (V::Int(x), V::Int(y)) = (a, b) {
        if let Some(r) = x.checked_sub(*y) {
            return Ok(V::Int(r));
        }
    }
    add(a, &negate(b))
}

pub fn mul(a: &V, b: &V) -> R<V> {
    if let (V::Int(x), V::Int(y)) = (a, b) {
        if let Some(r) = x.checked_mul(*y) {
            return Ok(V::Int(r));
        }
    }
    if matches!(a, V::Flo(_)) || matches!(b, V::Flo(_)) {
        return flo(to_f64(a) * to_f64(b));
    }
    if matches!(a, V::Rat(_)) || matches!(b, V::Rat(_)) {
        let (an, ad) = nd(a);
        let (bn, bd) = nd(b);
        return Ok(make_rat(an.mul(&bn), ad.mul(&bd)));
    }
    Ok(V::from_big(big_of(a).mul(&big_of(b))))
}

pub fn is_zero(a: &V) -> bool {
    match a {
        V::Int(x) => *x == 0,
        V::Flo(x) => *x == 0.0,
        _ => false,
    }
}

/// a / b, b non-zero.
pub fn div(a: &V, b: &V) -> R<V> {
    if matches!(a, V::Flo(_)) || matches!(b, V::Flo(_)) {
        return flo(to_f64(a) / to_f64(b));
    }
    let (an, ad) = nd(a);
    let (bn, bd) = nd(b);
    Ok(make_rat(an.mul(&bd), ad.mul(&bn)))
}

pub fn compare(a: &V, b: &V) -> Ordering {
    match (a, b) {
        (V::Int(x), V::Int(y)) => return x.cmp(y),
        (V::Flo(x), V::Flo(y)) => return x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (V::Flo(x), V::Int(y)) if y.unsigned_abs() <= 1 << 53 => return x.partial_cmp(&(*y as f64)).unwrap_or(Ordering::Equal),
        (V::Int(x), V::Flo(y)) if x.unsigned_abs() <= 1 << 53 => return (*x as f64).partial_cmp(y).unwrap_or(Ordering::Equal),
        _ => {}
    }
    let ea = to_exact(a);
    let eb = to_exact(b);
    let (an, ad) = nd(&ea);
    let (bn, bd) = nd(&eb);
    an.mul(&bd).cmp(&bn.mul(&ad))
}

pub fn sign(a: &V) -> i32 {
    match a {
        V::Int(x) => x.signum() as i32,
        V::Big(b) => {
            if b.neg {
                -1
            } else {
                1
            }
        }
        V::Flo(x) => {
            if *x < 0.0 {
                -1
            } else if *x > 0.0 {
                1
            } else {
                0
            }
        }
        V::Rat(r) => {
            if r.0.neg {
                -1
            } else {
                1
            }
        }
        _ => 0,
    }
}

pub fn abs(a: &V) -> V {
    match a {
        V::Flo(x) => V::Flo(x.abs()),
        _ => {
            if sign(a) < 0 {
                negate(a)
            } else {
                a.clone()
            }
        }
    }
}

pub fn is_integer_value(v: &V) -> bool {
    match v {
        V::Int(_) | V::Big(_) => true,
        V::Flo(x) => x.fract() == 0.0,
        _ => false,
    }
}

pub fn check_integer(who: &str, v: &V) -> R<()> {
    if is_integer_value(v) {
        Ok(())
    } else {
        type_err(who, "integer", v)
    }
}

/// Quotient and remainder of exact integers (b non-zero), truncating or flooring.
pub fn divide_integers(floor: bool, a: &V, b: &V) -> (V, V) {
    if let (V::Int(x), V::Int(y)) = (a, b) {
        if let (Some(q), Some(r)) = (x.checked_div(*y), x.checked_rem(*y)) {
            if floor && r != 0 && ((r < 0) != (*y < 0)) {
                return (V::Int(q - 1), V::Int(r + y));
            }
            return (V::Int(q), V::Int(r));
        }
    }
    let (x, y) = (big_of(a), big_of(b));
    let (mut q, mut r) = x.divrem(&y);
    if floor && !r.is_zero() && (r.neg != y.neg) {
        r = r.add(&y);
        q = q.sub(&Big::from_i64(1));
    }
    (V::from_big(q), V::from_big(r))
}

/// The shared body of quotient/remainder/modulo: integer checks, E313, inexact contagion.
pub fn integer_division(who: &str, args: &[V], floor: bool) -> R<(V, V)> {
    check_integer(who, &args[0])?;
    check_integer(who, &args[1])?;
    let inexact = matches!(args[0], V::Flo(_)) || matches!(args[1], V::Flo(_));
    let a = to_exact(&args[0]);
    let b = to_exact(&args[1]);
    if is_zero(&b) {
        return err("E313", format!("{}: division by zero", who), args.to_vec());
    }
    let (q, r) = divide_integers(floor, &a, &b);
    if inexact {
        Ok((flo(to_f64(&q))?, flo(to_f64(&r))?))
    } else {
        Ok((q, r))
    }
}

pub fn gcd_int(a: &V, b: &V) -> V {
    if let (V::Int(x), V::Int(y)) = (a, b) {
        let (mut x, mut y) = (x.unsigned_abs(), y.unsigned_abs());
        while y != 0 {
            let t = x % y;
            x = y;
            y = t;
        }
        return V::from_big(Big::from_u64(x));
    }
    V::from_big(big_of(a).gcd(&big_of(b)))
}

pub fn expt(base: &V, e: &V, args: &[V]) -> R<V> {
    let negative = sign(e) < 0;
    if let V::Flo(b) = base {
        if *b == 0.0 && negative {
            return err("E313", "expt: division by zero".to_string(), args.to_vec());
        }
        return flo(b.powf(to_f64(e)));
    }
    if is_zero(base) {
        if negative {
            return err("E313", "expt: division by zero".to_string(), args.to_vec());
        }
        return Ok(V::Int(if is_zero(e) { 1 } else { 0 }));
    }
    if let V::Int(1) = base {
        return Ok(V::Int(1));
    }
    if let V::Int(-1) = base {
        return Ok(V::Int(if big_of(e).is_even() { 1 } else { -1 }));
    }
    let mag = big_of(e).abs();
    let m = match mag.to_i64() {
        Some(m) if m <= 1 << 24 => m as u64,
        _ => return err("E311", "expt: exponent too large".to_string(), vec![e.clone()]),
    };
    let (n, d) = nd(base);
    let (mut n, mut d) = (n.pow(m), d.pow(m));
    if negative {
        std::mem::swap(&mut n, &mut d);
    }
    Ok(make_rat(n, d))
}

/// JS-style shortest round-trip decimal, then Lispex's `.0`/exponent form.
pub fn format_flonum(x: f64) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0".to_string() } else { "0.0".to_string() };
    }
    let e_form = format!("{:e}", x.abs());
    let (mant, exp) = e_form.split_at(e_form.find('e').unwrap());
    let exp: i64 = exp[1..].parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i64;
    let n = exp + 1;
    let mut s = String::new();
    if x < 0.0 {
        s.push('-');
    }
    if k <= n && n <= 21 {
        s.push_str(&digits);
        for _ in 0..(n - k) {
            s.push('0');
        }
        s.push_str(".0");
    } else if 0 < n && n <= 21 {
        s.push_str(&digits[..n as usize]);
        s.push('.');
        s.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        s.push_str("0.");
        for _ in 0..(-n) {
            s.push('0');
        }
        s.push_str(&digits);
    } else {
        s.push_str(&digits[..1]);
        s.push('.');
        if k > 1 {
            s.push_str(&digits[1..]);
        } else {
            s.push('0');
        }
        s.push('e');
        s.push_str(&format!("{}", n - 1));
    }
    s
}

pub fn format_number(v: &V, radix: u32) -> String {
    match v {
        V::Int(i) => {
            if radix == 10 {
                format!("{}", i)
            } else {
                Big::from_i64(*i).to_string_radix(radix)
            }
        }
        V::Big(b) => b.to_string_radix(radix),
        V::Rat(r) => format!("{}/{}", r.0.to_string_radix(radix), r.1.to_string_radix(radix)),
        V::Flo(x) => format_flonum(*x),
        _ => String::new(),
    }
}

/// Largest decimal exponent accepted for an exact (#e) decimal, bounding the bignum built (the
/// built-in routes' MAX_EXACT_DECIMAL_EXPONENT).
const MAX_EXACT_DECIMAL_EXPONENT: i64 = 100_000;

/// The exact value of an unsigned radix-10 decimal already checked for syntax (`digits[.digits]
/// [e[sign]digits]`), or None when its exponent is beyond ±MAX_EXACT_DECIMAL_EXPONENT.
fn exact_decimal(t: &str) -> Option<V> {
    let (mantissa_text, exp_text) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let exp: i64 = match exp_text {
        Some(e) => e.parse().ok()?,
        None => 0,
    };
    if exp.abs() > MAX_EXACT_DECIMAL_EXPONENT {
        return None;
    }
    let (int_part, frac_part) = match mantissa_text.find('.') {
        Some(i) => (&mantissa_text[..i], &mantissa_text[i + 1..]),
        None => (mantissa_text, ""),
    };
    let mut digits = String::with_capacity(int_part.len() + frac_part.len() + 1);
    digits.push_str(if int_part.is_empty() { "0" } else { int_part });
    digits.push_str(frac_part);
    let mantissa = Big::parse_digits(&digits, 10)?;
    let scale = exp - frac_part.len() as i64;
    let ten = Big::from_i64(10);
    Some(if scale >= 0 {
        V::from_big(mantissa.mul(&ten.pow(scale as u64)))
    } else {
        make_rat(mantissa, ten.pow((-scale) as u64))
    })
}

/// Number syntax subset: [sign] digits, n/d, decimals with exponent, radix prefixes.
/// Returns Ok(None) for "not a number", Err for a non-finite inexact literal.
pub fn parse_number(text: &str, default_radix: u32) -> Result<Option<V>, ()> {
    let mut radix = default_radix;
    let mut exactness: Option<char> = None;
    let mut saw_radix = false;
    let mut t = text;
    while t.len() >= 2 && t.starts_with('#') {
        let p = t.as_bytes()[1].to_ascii_lowercase() as char;
        match p {
            'e' | 'i' => {
                if exactness.is_some() {
                    return Ok(None);
                }
                exactness = Some(p);
            }
            'b' | 'o' | 'd' | 'x' => {
                if saw_radix {
                    return Ok(None);
                }
                saw_radix = true;
                radix = match p {
                    'b' => 2,
                    'o' => 8,
                    'd' => 10,
                    _ => 16,
                };
            }
            _ => return Ok(None),
        }
        t = &t[2..];
    }
    let mut negative = false;
    if t.starts_with('+') || t.starts_with('-') {
        negative = t.starts_with('-');
        t = &t[1..];
        let l = t.to_ascii_lowercase();
        if l == "inf.0" || l == "nan.0" {
            return Err(());
        }
    }
    if t.is_empty() {
        return Ok(None);
    }
    let uint = |s: &str| -> Option<Big> {
        if s.is_empty() || !s.chars().all(|c| c.is_digit(radix)) {
            None
        } else {
            Big::parse_digits(s, radix)
        }
    };
    let mut value: V;
    if let Some(slash) = t.find('/') {
        let (n, d) = match (uint(&t[..slash]), uint(&t[slash + 1..])) {
            (Some(n), Some(d)) => (n, d),
            _ => return Ok(None),
        };
        if d.is_zero() {
            return Ok(None);
        }
        value = make_rat(n, d);
        if exactness == Some('i') {
            let f = to_f64(&value);
            if !f.is_finite() {
                return Err(());
            }
            value = V::Flo(f);
        }
    } else if let Some(n) = uint(t) {
        value = V::from_big(n);
        if exactness == Some('i') {
            let f = to_f64(&value);
            if !f.is_finite() {
                return Err(());
            }
            value = V::Flo(f);
        }
    } else {
        if radix != 10 {
            return Ok(None);
        }
        let valid = {
            let b = t.as_bytes();
            let mut i = 0;
            let mut int_digits = 0;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
                int_digits += 1;
            }
            let mut frac_digits = 0;
            if i < b.len() && b[i] == b'.' {
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                    frac_digits += 1;
                }
            }
            let mut ok = int_digits + frac_digits > 0;
            if ok && i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                i += 1;
                if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                    i += 1;
                }
                let s = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                ok = i > s;
            }
            ok && i == b.len()
        };
        if !valid {
            return Ok(None);
        }
        if exactness == Some('e') {
            // An exact decimal is read exactly (R7RS §6.2.5: #e1.1 is 11/10), never through a
            // double — as the built-in routes do (engines/lispex/numbers.ts parseNumber).
            match exact_decimal(t) {
                Some(v) => value = v,
                None => return Ok(None),
            }
        } else {
            let d: f64 = match t.parse() {
                Ok(d) => d,
                Err(_) => return Ok(None),
            };
            if !d.is_finite() {
                return Err(());
            }
            value = V::Flo(d);
        }
    }
    if negative {
        value = negate(&value);
    }
    Ok(Some(value))
}
