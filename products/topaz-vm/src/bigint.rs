//! Arbitrary-precision signed integers: sign and magnitude in base 2^32 limbs (least
//! significant first, no trailing zero limbs; zero is non-negative with no limbs).
//! Schoolbook algorithms: the programs this machine runs use modest bignums.

use std::cmp::Ordering;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Big {
    pub neg: bool,
    pub mag: Vec<u32>,
}

fn trim(v: &mut Vec<u32>) {
    while let Some(&0) = v.last() {
        v.pop();
    }
}

fn cmp_mag(a: &[u32], b: &[u32]) -> Ordering {
    if a.len() != b.len() {
        return a.len().cmp(&b.len());
    }
    for i in (0..a.len()).rev() {
        if a[i] != b[i] {
            return a[i].cmp(&b[i]);
        }
    }
    Ordering::Equal
}

fn add_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(a.len() + 1);
    let mut carry = 0u64;
    for i in 0..a.len() {
        let s = a[i] as u64 + *b.get(i).unwrap_or(&0) as u64 + carry;
        out.push(s as u32);
        carry = s >> 32;
    }
    if carry > 0 {
        out.push(carry as u32);
    }
    out
}

/// a - b with |a| >= |b|.
fn sub_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i64;
    for i in 0..a.len() {
        let mut d = a[i] as i64 - *b.get(i).unwrap_or(&0) as i64 - borrow;
        if d < 0 {
            d += 1 << 32;
            borrow = 1;
        } else {
            borrow = 0;
        }
        out.push(d as u32);
    }
    trim(&mut out);
    out
}

fn mul_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut out = vec![0u32; a.len() + b.len()];
    for i in 0..a.len() {
        let mut carry = 0u64;
        let x = a[i] as u64;
        for j in 0..b.len() {
            let t = x * b[j] as u64 + out[i + j] as u64 + carry;
            out[i + j] = t as u32;
            carry = t >> 32;
        }
        let mut k = i + b.len();
        while carry > 0 {
            let t = out[k] as u64 + carry;
            out[k] = t as u32;
            carry = t >> 32;
            k += 1;
        }
    }
    trim(&mut out);
    out
}

/// Divide a magnitude by a single limb: (quotient, remainder).
fn divrem_small(a: &[u32], d: u32) -> (Vec<u32>, u32) {
    let mut q = vec![0u32; a.len()];
    let mut r = 0u64;
    for i in (0..a.len()).rev() {
        let cur = (r << 32) | a[i] as u64;
        q[i] = (cur / d as u64) as u32;
        r = cur % d as u64;
    }
    trim(&mut q);
    (q, r as u32)
}

fn bit_len(a: &[u32]) -> usize {
    match a.last() {
        None => 0,
        Some(&top) => (a.len() - 1) * 32 + (32 - top.leading_zeros() as usize),
    }
}

fn bit(a: &[u32], i: usize) -> bool {
    (a[i / 32] >> (i % 32)) & 1 == 1
}

fn shl_mag(a: &[u32], n: usize) -> Vec<u32> {
    if a.is_empty() {
        return Vec::new();
    }
    let limbs = n / 32;
    let bits = n % 32;
    let mut out = vec![0u32; limbs];
    let mut carry = 0u32;
    for &x in a {
        if bits == 0 {
            out.push(x);
        } else {
            out.push((x << bits) | carry);
            carry = x >> (32 - bits);
        }
    }
    if carry > 0 {
        out.push(carry);
    }
    trim(&mut out);
    out
}

fn shr_mag(a: &[u32], n: usize) -> Vec<u32> {
    let limbs = n / 32;
    if limbs >= a.len() {
        return Vec::new();
    }
    let bits = n % 32;
    let mut out = Vec::with_capacity(a.len() - limbs);
    for i in limbs..a.len() {
        let lo = a[i] >> bits;
        let hi = if bits > 0 && i + 1 < a.len() { a[i + 1] << (32 - bits) } else { 0 };
        out.push(lo | hi);
    }
    trim(&mut out);
    out
}

/// Truncating division of magnitudes (b non-empty).
fn divrem_mag(a: &[u32], b: &[u32]) -> (Vec<u32>, Vec<u32>) {
    if cmp_mag(a, b) == Ordering::Less {
        return (Vec::new(), a.to_vec());
    }
    if b.len() == 1 {
        let (q, r) = divrem_small(a, b[0]);
        let mut rv = vec![r];
        trim(&mut rv);
        return (q, rv);
    }
    // Shift-and-subtract long division, one bit at a time from the top.
    let n = bit_len(a);
    let mut q = vec![0u32; a.len()];
    let mut r: Vec<u32> = Vec::new();
    for i in (0..n).rev() {
        r = shl_mag(&r, 1);
        if bit(a, i) {
            if r.is_empty() {
                r.push(1);
            } else {
                r[0] |= 1;
            }
        }
        if cmp_mag(&r, b) != Ordering::Less {
            r = sub_mag(&r, b);
            q[i / 32] |= 1 << (i % 32);
        }
    }
    trim(&mut q);
    (q, r)
}

impl Big {
    pub fn zero() -> Big {
        Big { neg: false, mag: Vec::new() }
    }
    fn make(neg: bool, mut mag: Vec<u32>) -> Big {
        trim(&mut mag);
        let neg = neg && !mag.is_empty();
        Big { neg, mag }
    }
    pub fn from_i64(x: i64) -> Big {
        let neg = x < 0;
        let m = x.unsigned_abs();
        Big::make(neg, vec![m as u32, (m >> 32) as u32])
    }
    pub fn from_u64(m: u64) -> Big {
        Big::make(false, vec![m as u32, (m >> 32) as u32])
    }
    pub fn is_zero(&self) -> bool {
        self.mag.is_empty()
    }
    /// The value as i64 when it fits.
    pub fn to_i64(&self) -> Option<i64> {
        if self.mag.len() > 2 {
            return None;
        }
        let m = *self.mag.first().unwrap_or(&0) as u64 | (*self.mag.get(1).unwrap_or(&0) as u64) << 32;
        if self.neg {
            if m <= (i64::MAX as u64) + 1 {
                Some((m as i64).wrapping_neg())
            } else {
                None
            }
        } else if m <= i64::MAX as u64 {
            Some(m as i64)
        } else {
            None
        }
    }
    pub fn neg(&self) -> Big {
        Big::make(!self.neg, self.mag.clone())
    }
    pub fn abs(&self) -> Big {
        Big { neg: false, mag: self.mag.clone() }
    }
    pub fn add(&self, o: &Big) -> Big {
        if self.neg == o.neg {
            return Big::make(self.neg, add_mag(&self.mag, &o.mag));
        }
        match cmp_mag(&self.mag, &o.mag) {
            Ordering::Equal => Big::zero(),
            Ordering::Greater => Big::make(self.neg, sub_mag(&self.mag, &o.mag)),
            Ordering::Less => Big::make(o.neg, sub_mag(&o.mag, &self.mag)),
        }
    }
    pub fn sub(&self, o: &Big) -> Big {
        self.add(&o.neg())
    }
    pub fn mul(&self, o: &Big) -> Big {
        Big::make(self.neg != o.neg, mul_mag(&self.mag, &o.mag))
    }
    /// Truncating quotient and remainder (remainder has the dividend's sign). `o` non-zero.
    pub fn divrem(&self, o: &Big) -> (Big, Big) {
        let (q, r) = divrem_mag(&self.mag, &o.mag);
        (Big::make(self.neg != o.neg, q), Big::make(self.neg, r))
    }
    pub fn cmp(&self, o: &Big) -> Ordering {
        match (self.neg, o.neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => cmp_mag(&self.mag, &o.mag),
            (true, true) => cmp_mag(&o.mag, &self.mag),
        }
    }
    pub fn is_even(&self) -> bool {
        self.mag.first().map(|x| x & 1 == 0).unwrap_or(true)
    }
    pub fn gcd(&self, o: &Big) -> Big {
        let mut a = self.abs();
        let mut b = o.abs();
        while !b.is_zero() {
            let (_, r) = a.divrem(&b);
            a = b;
            b = r;
        }
        a
    }
    pub fn bit_len(&self) -> usize {
        bit_len(&self.mag)
    }
    pub fn shl(&self, n: usize) -> Big {
        Big::make(self.neg, shl_mag(&self.mag, n))
    }
    /// Magnitude shifted right (sign kept; truncates toward zero).
    pub fn shr(&self, n: usize) -> Big {
        Big::make(self.neg, shr_mag(&self.mag, n))
    }
    pub fn low_u64(&self) -> u64 {
        *self.mag.first().unwrap_or(&0) as u64 | (*self.mag.get(1).unwrap_or(&0) as u64) << 32
    }
    pub fn pow(&self, mut e: u64) -> Big {
        let mut base = self.clone();
        let mut acc = Big::from_i64(1);
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.mul(&base);
            }
            e >>= 1;
            if e > 0 {
                base = base.mul(&base);
            }
        }
        acc
    }
    pub fn to_string_radix(&self, radix: u32) -> String {
        if self.mag.is_empty() {
            return "0".to_string();
        }
        let chunk: u32 = match radix {
            2 => 1 << 31,
            8 => 1 << 30,
            16 => 1 << 28,
            _ => 1_000_000_000,
        };
        let width = match radix {
            2 => 31,
            8 => 10,
            16 => 7,
            _ => 9,
        };
        let mut parts: Vec<u32> = Vec::new();
        let mut m = self.mag.clone();
        while !m.is_empty() {
            let (q, r) = divrem_small(&m, chunk);
            parts.push(r);
            m = q;
        }
        let mut s = String::new();
        if self.neg {
            s.push('-');
        }
        let fmt = |x: u32| -> String {
            match radix {
                2 => format!("{:b}", x),
                8 => format!("{:o}", x),
                16 => format!("{:x}", x),
                _ => format!("{}", x),
            }
        };
        s.push_str(&fmt(*parts.last().unwrap()));
        for p in parts.iter().rev().skip(1) {
            let t = fmt(*p);
            for _ in t.len()..width {
                s.push('0');
            }
            s.push_str(&t);
        }
        s
    }
    /// Parse unsigned digits in `radix` (caller validated them).
    pub fn parse_digits(digits: &str, radix: u32) -> Option<Big> {
        let mut m: Vec<u32> = Vec::new();
        for c in digits.chars() {
            let d = c.to_digit(radix)?;
            // m = m * radix + d
            let mut carry = d as u64;
            for limb in m.iter_mut() {
                let t = *limb as u64 * radix as u64 + carry;
                *limb = t as u32;
                carry = t >> 32;
            }
            if carry > 0 {
                m.push(carry as u32);
            }
        }
        Some(Big::make(false, m))
    }
    /// The nearest double (ties to even); may be infinite.
    pub fn to_f64(&self) -> f64 {
        let l = self.bit_len();
        let v = if l <= 64 {
            self.low_u64() as f64
        } else {
            let shift = l - 64;
            let top = shr_mag(&self.mag, shift);
            let mut q = *top.first().unwrap_or(&0) as u64 | (*top.get(1).unwrap_or(&0) as u64) << 32;
            let sticky = cmp_mag(&shl_mag(&top, shift), &self.mag) != Ordering::Equal;
            if sticky {
                q |= 1;
            }
            scale2(q as f64, shift as i64)
        };
        if self.neg {
            -v
        } else {
            v
        }
    }
}

/// x * 2^e without intermediate overflow/underflow where avoidable.
pub fn scale2(mut x: f64, mut e: i64) -> f64 {
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e as i32)
}
