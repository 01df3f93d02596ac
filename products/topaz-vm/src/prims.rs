//! Topaz's primitives, keyed by the registry's runtime identity group. Arity is checked by the
//! machine before a primitive runs; each checks its argument types and raises the catalog code
//! the condition calls for (E310 pair, E311 range, E312 type, E313 division by zero, E314
//! non-finite).

use crate::num::{self, check_num};
use crate::printer::{display_value, write_value};
use crate::unicode;
use crate::value::*;
use crate::vm::{values_of, Control, PrimFn, Vm};
use std::cmp::Ordering;
use std::rc::Rc;

pub const MAX_SIZE: i64 = 16_777_216;

fn pair_err<T>(who: &str, got: &V) -> R<T> {
    err("E310", format!("{}: pair expected", who), vec![got.clone()])
}

fn index_err<T>(who: &str, idx: &V, len: usize) -> R<T> {
    err("E311", format!("{}: index out of range for length {}", who, len), vec![idx.clone()])
}

fn check_index(who: &str, v: &V, len: usize, inclusive: bool) -> R<usize> {
    match v {
        V::Int(i) => {
            if *i >= 0 && ((inclusive && (*i as usize) <= len) || (!inclusive && (*i as usize) < len)) {
                Ok(*i as usize)
            } else {
                index_err(who, v, len)
            }
        }
        V::Big(_) => index_err(who, v, len),
        _ => type_err(who, "exact integer index", v),
    }
}

fn check_size(who: &str, v: &V) -> R<usize> {
    match v {
        V::Int(i) if *i >= 0 => {
            if *i <= MAX_SIZE {
                Ok(*i as usize)
            } else {
                err("E311", format!("{}: size out of range (at most {})", who, MAX_SIZE), vec![v.clone()])
            }
        }
        V::Big(b) if !b.neg => err("E311", format!("{}: size out of range (at most {})", who, MAX_SIZE), vec![v.clone()]),
        _ => type_err(who, "exact non-negative integer", v),
    }
}

fn check_list(who: &str, v: &V) -> R<Vec<V>> {
    match list_items(v) {
        Some(x) => Ok(x),
        None => type_err(who, "proper list", v),
    }
}

fn check_str(who: &str, v: &V) -> R<Text> {
    match v {
        V::Str(s) => Ok(s.clone()),
        _ => type_err(who, "string", v),
    }
}

fn check_char(who: &str, v: &V) -> R<u32> {
    match v {
        V::Char(c) => Ok(*c),
        _ => type_err(who, "character", v),
    }
}

fn check_proc(who: &str, v: &V) -> R<()> {
    if v.is_proc() {
        Ok(())
    } else {
        type_err(who, "procedure", v)
    }
}

fn check_vec(who: &str, v: &V) -> R<Rc<std::cell::RefCell<Vec<V>>>> {
    match v {
        V::Vector(x) => Ok(x.clone()),
        _ => type_err(who, "vector", v),
    }
}

fn check_bytes(who: &str, v: &V) -> R<Rc<Vec<u8>>> {
    match v {
        V::Bytes(x) => Ok(x.clone()),
        _ => type_err(who, "bytevector", v),
    }
}

fn check_byte(who: &str, v: &V) -> R<u8> {
    match v {
        V::Int(i) if (0..=255).contains(i) => Ok(*i as u8),
        _ => type_err(who, "byte (exact integer 0..255)", v),
    }
}

fn call_for_one(vm: &mut Vm, who: &str, f: &V, args: Vec<V>) -> R<V> {
    let v = vm.apply(f, args)?;
    if let V::Multi(vs) = &v {
        return err("E320", format!("{}: the procedure returned {} values where one is needed", who, vs.len()), vec![]);
    }
    Ok(v)
}

fn range(who: &str, args: &[V], from: usize, len: usize) -> R<(usize, usize)> {
    let start = if args.len() > from { check_index(who, &args[from], len, true)? } else { 0 };
    let end = if args.len() > from + 1 { check_index(who, &args[from + 1], len, true)? } else { len };
    if start > end {
        return err("E311", format!("{}: start index after end index", who), vec![args[from].clone(), args[from + 1].clone()]);
    }
    Ok((start, end))
}

fn str_from(chars: &[char]) -> V {
    let s: String = chars.iter().collect();
    V::str(&s)
}

// Numbers ------------------------------------------------------------------------------------------

fn plus(_: &mut Vm, a: &[V]) -> R<V> {
    let mut acc = V::Int(0);
    for x in a {
        check_num("+", x)?;
        acc = num::add(&acc, x)?;
    }
    Ok(acc)
}

fn minus(_: &mut Vm, a: &[V]) -> R<V> {
    check_num("-", &a[0])?;
    if a.len() == 1 {
        return Ok(num::negate(&a[0]));
    }
    let mut acc = a[0].clone();
    for x in &a[1..] {
        check_num("-", x)?;
        acc = num::sub(&acc, x)?;
    }
    Ok(acc)
}

fn times(_: &mut Vm, a: &[V]) -> R<V> {
    let mut acc = V::Int(1);
    for x in a {
        check_num("*", x)?;
        acc = num::mul(&acc, x)?;
    }
    Ok(acc)
}

fn divide(_: &mut Vm, a: &[V]) -> R<V> {
    for x in a {
        check_num("/", x)?;
    }
    let zero = || err("E313", "/: division by zero".to_string(), a.to_vec());
    if a.len() == 1 {
        if num::is_zero(&a[0]) {
            return zero();
        }
        return num::div(&V::Int(1), &a[0]);
    }
    let mut acc = a[0].clone();
    for x in &a[1..] {
        if num::is_zero(x) {
            return zero();
        }
        acc = num::div(&acc, x)?;
    }
    Ok(acc)
}

fn chain(who: &str, a: &[V], holds: fn(Ordering) -> bool) -> R<V> {
    let mut result = true;
    check_num(who, &a[0])?;
    for i in 1..a.len() {
        check_num(who, &a[i])?;
        if result && !holds(num::compare(&a[i - 1], &a[i])) {
            result = false;
        }
    }
    Ok(V::Bool(result))
}

fn lt(_: &mut Vm, a: &[V]) -> R<V> {
    chain("<", a, |o| o == Ordering::Less)
}
fn le(_: &mut Vm, a: &[V]) -> R<V> {
    chain("<=", a, |o| o != Ordering::Greater)
}
fn gt(_: &mut Vm, a: &[V]) -> R<V> {
    chain(">", a, |o| o == Ordering::Greater)
}
fn ge(_: &mut Vm, a: &[V]) -> R<V> {
    chain(">=", a, |o| o != Ordering::Less)
}
fn num_eq(_: &mut Vm, a: &[V]) -> R<V> {
    chain("=", a, |o| o == Ordering::Equal)
}

fn extremum(who: &str, a: &[V], pick_second: fn(Ordering) -> bool) -> R<V> {
    check_num(who, &a[0])?;
    let mut best = a[0].clone();
    let mut inexact = matches!(best, V::Flo(_));
    for x in &a[1..] {
        check_num(who, x)?;
        if let V::Flo(_) = x {
            inexact = true;
        }
        if pick_second(num::compare(&best, x)) {
            best = x.clone();
        }
    }
    if inexact {
        num::flo(num::to_f64(&best))
    } else {
        Ok(best)
    }
}
fn max(_: &mut Vm, a: &[V]) -> R<V> {
    extremum("max", a, |o| o == Ordering::Less)
}
fn min(_: &mut Vm, a: &[V]) -> R<V> {
    extremum("min", a, |o| o == Ordering::Greater)
}

fn abs(_: &mut Vm, a: &[V]) -> R<V> {
    check_num("abs", &a[0])?;
    Ok(num::abs(&a[0]))
}
fn square(_: &mut Vm, a: &[V]) -> R<V> {
    check_num("square", &a[0])?;
    num::mul(&a[0], &a[0])
}
fn exact(_: &mut Vm, a: &[V]) -> R<V> {
    check_num("exact", &a[0])?;
    Ok(num::to_exact(&a[0]))
}
fn inexact(_: &mut Vm, a: &[V]) -> R<V> {
    check_num("exact->inexact", &a[0])?;
    match &a[0] {
        V::Flo(_) => Ok(a[0].clone()),
        x => num::flo(num::to_f64(x)),
    }
}
fn exact_p(_: &mut Vm, a: &[V]) -> R<V> {
    check_num("exact?", &a[0])?;
    Ok(V::Bool(!matches!(a[0], V::Flo(_))))
}
fn inexact_p(_: &mut Vm, a: &[V]) -> R<V> {
    check_num("inexact?", &a[0])?;
    Ok(V::Bool(matches!(a[0], V::Flo(_))))
}

fn rounding(who: &str, a: &[V], mode: u8) -> R<V> {
    match &a[0] {
        V::Int(_) | V::Big(_) => Ok(a[0].clone()),
        V::Flo(x) => Ok(V::Flo(match mode {
            0 => x.floor(),
            1 => x.ceil(),
            2 => x.trunc(),
            _ => {
                let f = x.floor();
                let d = x - f;
                let r = if d < 0.5 {
                    f
                } else if d > 0.5 {
                    f + 1.0
                } else if f % 2.0 == 0.0 {
                    f
                } else {
                    f + 1.0
                };
                if r == 0.0 && x.is_sign_negative() {
                    -0.0
                } else {
                    r
                }
            }
        })),
        V::Rat(r) => {
            let (n, d) = (&r.0, &r.1);
            let (q, rem) = n.divrem(d);
            let fl = if n.neg && !rem.is_zero() { q.sub(&crate::bigint::Big::from_i64(1)) } else { q };
            let one = crate::bigint::Big::from_i64(1);
            let out = match mode {
                0 => fl,
                1 => fl.add(&one),
                2 => {
                    if n.neg {
                        fl.add(&one)
                    } else {
                        fl
                    }
                }
                _ => {
                    let twice = n.sub(&fl.mul(d)).shl(1);
                    match twice.cmp(d) {
                        Ordering::Less => fl,
                        Ordering::Greater => fl.add(&one),
                        Ordering::Equal => {
                            if fl.is_even() {
                                fl
                            } else {
                                fl.add(&one)
                            }
                        }
                    }
                }
            };
            Ok(V::from_big(out))
        }
        _ => type_err(who, "number", &a[0]),
    }
}
fn floor(_: &mut Vm, a: &[V]) -> R<V> {
    rounding("floor", a, 0)
}
fn ceiling(_: &mut Vm, a: &[V]) -> R<V> {
    rounding("ceiling", a, 1)
}
fn truncate(_: &mut Vm, a: &[V]) -> R<V> {
    rounding("truncate", a, 2)
}
fn round(_: &mut Vm, a: &[V]) -> R<V> {
    rounding("round", a, 3)
}

fn quotient(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(num::integer_division("quotient", a, false)?.0)
}
fn remainder(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(num::integer_division("remainder", a, false)?.1)
}
fn modulo(_: &mut Vm, a: &[V]) -> R<V> {
    // The planted bug of the test copy: truncating instead of flooring.
    let floor = !cfg!(feature = "planted-modulo-bug");
    Ok(num::integer_division("modulo", a, floor)?.1)
}
fn tq(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(num::integer_division("truncate-quotient", a, false)?.0)
}
fn tr(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(num::integer_division("truncate-remainder", a, false)?.1)
}
fn tboth(_: &mut Vm, a: &[V]) -> R<V> {
    let (q, r) = num::integer_division("truncate/", a, false)?;
    Ok(values_of(vec![q, r]))
}
fn fq(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(num::integer_division("floor-quotient", a, true)?.0)
}
fn fr(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(num::integer_division("floor-remainder", a, true)?.1)
}
fn fboth(_: &mut Vm, a: &[V]) -> R<V> {
    let (q, r) = num::integer_division("floor/", a, true)?;
    Ok(values_of(vec![q, r]))
}

fn gcd_like(who: &str, a: &[V], lcm: bool) -> R<V> {
    let mut acc = V::Int(if lcm { 1 } else { 0 });
    let mut inexact = false;
    for x in a {
        num::check_integer(who, x)?;
        if let V::Flo(_) = x {
            inexact = true;
        }
        let e = num::to_exact(x);
        acc = if lcm {
            if num::is_zero(&acc) || num::is_zero(&e) {
                V::Int(0)
            } else {
                let g = num::gcd_int(&acc, &e);
                let q = num::divide_integers(false, &num::abs(&acc), &g).0;
                num::mul(&q, &num::abs(&e))?
            }
        } else {
            num::gcd_int(&acc, &e)
        };
    }
    acc = num::abs(&acc);
    if inexact {
        num::flo(num::to_f64(&acc))
    } else {
        Ok(acc)
    }
}
fn gcd(_: &mut Vm, a: &[V]) -> R<V> {
    gcd_like("gcd", a, false)
}
fn lcm(_: &mut Vm, a: &[V]) -> R<V> {
    gcd_like("lcm", a, true)
}

fn expt(_: &mut Vm, a: &[V]) -> R<V> {
    check_num("expt", &a[0])?;
    match &a[1] {
        V::Int(_) | V::Big(_) => num::expt(&a[0], &a[1], a),
        other => type_err("expt", "exact integer exponent", other),
    }
}

fn exact_integer_sqrt(_: &mut Vm, a: &[V]) -> R<V> {
    let ok = match &a[0] {
        V::Int(i) => *i >= 0,
        V::Big(b) => !b.neg,
        _ => false,
    };
    if !ok {
        return type_err("exact-integer-sqrt", "exact non-negative integer", &a[0]);
    }
    let n = num::big_of(&a[0]);
    // Newton iteration from above.
    let mut x = crate::bigint::Big::from_i64(1).shl(n.bit_len() / 2 + 1);
    if n.is_zero() {
        return Ok(values_of(vec![V::Int(0), V::Int(0)]));
    }
    loop {
        let y = x.add(&n.divrem(&x).0).shr(1);
        if y.cmp(&x) != Ordering::Less {
            break;
        }
        x = y;
    }
    let r = n.sub(&x.mul(&x));
    Ok(values_of(vec![V::from_big(x), V::from_big(r)]))
}

fn radix(who: &str, v: Option<&V>) -> R<u32> {
    match v {
        None => Ok(10),
        Some(V::Int(r)) if [2, 8, 10, 16].contains(r) => Ok(*r as u32),
        Some(other) => type_err(who, "radix 2, 8, 10 or 16", other),
    }
}

fn number_to_string(_: &mut Vm, a: &[V]) -> R<V> {
    check_num("number->string", &a[0])?;
    let r = radix("number->string", a.get(1))?;
    if r != 10 {
        if let V::Flo(_) = a[0] {
            return type_err("number->string", "exact number for a radix other than 10", &a[0]);
        }
    }
    Ok(V::str(&num::format_number(&a[0], r)))
}

fn string_to_number(_: &mut Vm, a: &[V]) -> R<V> {
    let s = check_str("string->number", &a[0])?;
    let r = radix("string->number", a.get(1))?;
    match num::parse_number(&s, r) {
        Ok(Some(v)) => Ok(v),
        Ok(None) => Ok(V::Bool(false)),
        Err(()) => err("E314", "string->number: non-finite inexact number".to_string(), vec![a[0].clone()]),
    }
}

fn number_sign(who: &str, v: &V) -> R<i32> {
    check_num(who, v)?;
    Ok(num::sign(v))
}
fn zero_p(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Bool(number_sign("zero?", &a[0])? == 0))
}
fn positive_p(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Bool(number_sign("positive?", &a[0])? > 0))
}
fn negative_p(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Bool(number_sign("negative?", &a[0])? < 0))
}
fn even(who: &str, v: &V) -> R<bool> {
    num::check_integer(who, v)?;
    Ok(match v {
        V::Int(i) => i % 2 == 0,
        V::Big(b) => b.is_even(),
        V::Flo(x) => x % 2.0 == 0.0,
        _ => false,
    })
}
fn even_p(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Bool(even("even?", &a[0])?))
}
fn odd_p(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Bool(!even("odd?", &a[0])?))
}

// Predicates -------------------------------------------------------------------------------------

macro_rules! pred {
    ($name:ident, $pat:pat) => {
        fn $name(_: &mut Vm, a: &[V]) -> R<V> {
            Ok(V::Bool(matches!(a[0], $pat)))
        }
    };
}
pred!(boolean_p, V::Bool(_));
pred!(bytevector_p, V::Bytes(_));
pred!(char_p, V::Char(_));
pred!(number_p, V::Int(_) | V::Big(_) | V::Rat(_) | V::Flo(_));
pred!(exact_integer_p, V::Int(_) | V::Big(_));
pred!(empty_p, V::Nil);
pred!(error_object_p, V::Err(_));
pred!(pair_p, V::Pair(_));
pred!(string_p, V::Str(_));
pred!(symbol_p, V::Sym(_));
pred!(vector_p, V::Vector(_));
pred!(not, V::Bool(false));
pred!(procedure_p, V::Prim(_) | V::Closure(_) | V::Cont(_));

fn integer_p(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Bool(num::is_integer_value(&a[0])))
}
fn list_p(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Bool(list_items(&a[0]).is_some()))
}

// Equality ---------------------------------------------------------------------------------------

fn eqv_p(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Bool(eqv(&a[0], &a[1])))
}
fn equal_p(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Bool(equal(&a[0], &a[1])))
}
fn not_equal_p(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Bool(!equal(&a[0], &a[1])))
}
fn boolean_eq(_: &mut Vm, a: &[V]) -> R<V> {
    for x in a {
        if !matches!(x, V::Bool(_)) {
            return type_err("boolean=?", "boolean", x);
        }
    }
    Ok(V::Bool(a.iter().all(|x| eqv(x, &a[0]))))
}
fn symbol_eq(_: &mut Vm, a: &[V]) -> R<V> {
    for x in a {
        if !matches!(x, V::Sym(_)) {
            return type_err("symbol=?", "symbol", x);
        }
    }
    Ok(V::Bool(a.iter().all(|x| eqv(x, &a[0]))))
}

// Lists ----------------------------------------------------------------------------------------------

fn car(_: &mut Vm, a: &[V]) -> R<V> {
    match &a[0] {
        V::Pair(p) => Ok(p.car.clone()),
        x => pair_err("car", x),
    }
}
fn cdr(_: &mut Vm, a: &[V]) -> R<V> {
    match &a[0] {
        V::Pair(p) => Ok(p.cdr.clone()),
        x => pair_err("cdr", x),
    }
}

/// c[ad]{2,4}r by name: letters apply right to left.
fn cxr(name: &str, v: &V) -> R<V> {
    let path: Vec<char> = name[1..name.len() - 1].chars().rev().collect();
    let mut cur = v.clone();
    for step in path {
        cur = match &cur {
            V::Pair(p) => {
                if step == 'a' {
                    p.car.clone()
                } else {
                    p.cdr.clone()
                }
            }
            _ => return pair_err(name, v),
        };
    }
    Ok(cur)
}

fn cons(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::cons(a[0].clone(), a[1].clone()))
}
fn list(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(list_from(a.to_vec(), V::Nil))
}
fn length(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Int(check_list("length", &a[0])?.len() as i64))
}
fn append(_: &mut Vm, a: &[V]) -> R<V> {
    if a.is_empty() {
        return Ok(V::Nil);
    }
    // Every list but the last must be proper: checked before anything is built, last to first
    // (the order the lists are copied in, so the one reported is the same).
    for x in a[..a.len() - 1].iter().rev() {
        if !is_proper_list(x) {
            return type_err("append", "proper list", x);
        }
    }
    let mut result = a[a.len() - 1].clone();
    for x in a[..a.len() - 1].iter().rev() {
        result = copy_onto(x, result);
    }
    Ok(result)
}

fn is_proper_list(v: &V) -> bool {
    let mut p = v;
    loop {
        match p {
            V::Pair(rc) => p = &rc.cdr,
            V::Nil => return true,
            _ => return false,
        }
    }
}

/// A copy of the proper list `x`'s spine ending in `tail`, built front to back in one pass (each
/// new pair is still uniquely owned when its tail is filled in).
fn copy_onto(x: &V, tail: V) -> V {
    let mut head = V::Nil;
    let mut slot: &mut V = &mut head;
    let mut p = x;
    while let V::Pair(rc) = p {
        *slot = V::cons(rc.car.dup(), V::Nil);
        slot = match slot {
            V::Pair(new) => &mut Rc::get_mut(new).expect("a pair just made has one owner").cdr,
            _ => unreachable!("just made a pair"),
        };
        p = &rc.cdr;
    }
    *slot = tail;
    head
}
fn reverse(_: &mut Vm, a: &[V]) -> R<V> {
    let items = check_list("reverse", &a[0])?;
    let mut out = V::Nil;
    for x in items {
        out = V::cons(x, out);
    }
    Ok(out)
}
fn list_copy(_: &mut Vm, a: &[V]) -> R<V> {
    let mut items = Vec::new();
    let mut p = a[0].clone();
    while let V::Pair(rc) = p.clone() {
        items.push(rc.car.clone());
        p = rc.cdr.clone();
    }
    Ok(list_from(items, p))
}
fn spine_len(v: &V) -> usize {
    let mut n = 0;
    let mut p = v.clone();
    while let V::Pair(rc) = p.clone() {
        n += 1;
        p = rc.cdr.clone();
    }
    n
}
fn list_ref(_: &mut Vm, a: &[V]) -> R<V> {
    let k = match &a[1] {
        V::Int(k) if *k >= 0 => *k as usize,
        V::Big(b) if !b.neg => return index_err("list-ref", &a[1], spine_len(&a[0])),
        other => return type_err("list-ref", "exact non-negative integer index", other),
    };
    let mut p = a[0].clone();
    for _ in 0..k {
        match p.clone() {
            V::Pair(rc) => p = rc.cdr.clone(),
            _ => break,
        }
    }
    match &p {
        V::Pair(rc) => Ok(rc.car.clone()),
        V::Nil => index_err("list-ref", &a[1], spine_len(&a[0])),
        _ => type_err("list-ref", "proper list", &a[0]),
    }
}
fn list_tail(_: &mut Vm, a: &[V]) -> R<V> {
    let k = match &a[1] {
        V::Int(k) if *k >= 0 => *k as usize,
        V::Big(b) if !b.neg => return index_err("list-tail", &a[1], spine_len(&a[0])),
        other => return type_err("list-tail", "exact non-negative integer index", other),
    };
    let mut p = a[0].clone();
    for _ in 0..k {
        match p.clone() {
            V::Pair(rc) => p = rc.cdr.clone(),
            _ => return index_err("list-tail", &a[1], spine_len(&a[0])),
        }
    }
    Ok(p)
}
fn make_list(_: &mut Vm, a: &[V]) -> R<V> {
    let k = check_size("make-list", &a[0])?;
    let fill = a.get(1).cloned().unwrap_or(V::Bool(false));
    Ok(list_from(vec![fill; k], V::Nil))
}
fn list_to_vector(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Vector(Rc::new(std::cell::RefCell::new(check_list("list->vector", &a[0])?))))
}
fn list_to_string(_: &mut Vm, a: &[V]) -> R<V> {
    let items = check_list("list->string", &a[0])?;
    let mut s = String::new();
    for c in &items {
        s.push(char::from_u32(check_char("list->string", c)?).unwrap_or('\u{fffd}'));
    }
    Ok(V::str(&s))
}
fn string_to_list(_: &mut Vm, a: &[V]) -> R<V> {
    let s = check_str("string->list", &a[0])?;
    Ok(list_from(s.chars().map(|c| V::Char(c as u32)).collect(), V::Nil))
}

fn member_by(who: &str, a: &[V], same: fn(&V, &V) -> bool) -> R<V> {
    let mut p = a[1].clone();
    while let V::Pair(rc) = p.clone() {
        if same(&a[0], &rc.car) {
            return Ok(p);
        }
        p = rc.cdr.clone();
    }
    if !p.is_nil() {
        return type_err(who, "proper list", &a[1]);
    }
    Ok(V::Bool(false))
}
fn member(_: &mut Vm, a: &[V]) -> R<V> {
    member_by("member", a, equal)
}
fn memv(_: &mut Vm, a: &[V]) -> R<V> {
    member_by("memv", a, eqv)
}
fn memq(_: &mut Vm, a: &[V]) -> R<V> {
    member_by("memq", a, eqv)
}
fn assoc_by(who: &str, a: &[V], same: fn(&V, &V) -> bool) -> R<V> {
    let mut p = a[1].clone();
    while let V::Pair(rc) = p.clone() {
        match &rc.car {
            V::Pair(entry) => {
                if same(&a[0], &entry.car) {
                    return Ok(rc.car.clone());
                }
            }
            _ => return type_err(who, "association list (list of pairs)", &a[1]),
        }
        p = rc.cdr.clone();
    }
    if !p.is_nil() {
        return type_err(who, "association list (list of pairs)", &a[1]);
    }
    Ok(V::Bool(false))
}
fn assoc(_: &mut Vm, a: &[V]) -> R<V> {
    assoc_by("assoc", a, equal)
}
fn assv(_: &mut Vm, a: &[V]) -> R<V> {
    assoc_by("assv", a, eqv)
}
fn assq(_: &mut Vm, a: &[V]) -> R<V> {
    assoc_by("assq", a, eqv)
}

// Vectors and bytevectors -----------------------------------------------------------------------

fn vector(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Vector(Rc::new(std::cell::RefCell::new(a.to_vec()))))
}
fn make_vector(_: &mut Vm, a: &[V]) -> R<V> {
    let k = check_size("make-vector", &a[0])?;
    let fill = a.get(1).cloned().unwrap_or(V::Bool(false));
    Ok(V::Vector(Rc::new(std::cell::RefCell::new(vec![fill; k]))))
}
fn vector_length(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Int(check_vec("vector-length", &a[0])?.borrow().len() as i64))
}
fn vector_ref(_: &mut Vm, a: &[V]) -> R<V> {
    let v = check_vec("vector-ref", &a[0])?;
    let items = v.borrow();
    let i = check_index("vector-ref", &a[1], items.len(), false)?;
    Ok(items[i].clone())
}
fn vector_set(_: &mut Vm, a: &[V]) -> R<V> {
    let v = check_vec("vector-set!", &a[0])?;
    let len = v.borrow().len();
    let i = check_index("vector-set!", &a[1], len, false)?;
    v.borrow_mut()[i] = a[2].clone();
    Ok(V::Unspec)
}
fn vector_to_list(_: &mut Vm, a: &[V]) -> R<V> {
    let v = check_vec("vector->list", &a[0])?;
    let items = v.borrow().clone();
    Ok(list_from(items, V::Nil))
}
fn vector_copy(_: &mut Vm, a: &[V]) -> R<V> {
    let v = check_vec("vector-copy", &a[0])?;
    let items = v.borrow();
    let (s, e) = range("vector-copy", a, 1, items.len())?;
    Ok(V::Vector(Rc::new(std::cell::RefCell::new(items[s..e].to_vec()))))
}
fn vector_to_string(_: &mut Vm, a: &[V]) -> R<V> {
    let v = check_vec("vector->string", &a[0])?;
    let items = v.borrow();
    let (s, e) = range("vector->string", a, 1, items.len())?;
    let mut out = Vec::new();
    for x in &items[s..e] {
        out.push(char::from_u32(check_char("vector->string", x)?).unwrap_or('\u{fffd}'));
    }
    Ok(str_from(&out))
}
fn string_to_vector(_: &mut Vm, a: &[V]) -> R<V> {
    let s = check_str("string->vector", &a[0])?;
    let cs: Vec<char> = s.chars().collect();
    let (st, e) = range("string->vector", a, 1, cs.len())?;
    Ok(V::Vector(Rc::new(std::cell::RefCell::new(cs[st..e].iter().map(|c| V::Char(*c as u32)).collect()))))
}
fn bytevector(_: &mut Vm, a: &[V]) -> R<V> {
    let mut out = Vec::new();
    for x in a {
        out.push(check_byte("bytevector", x)?);
    }
    Ok(V::Bytes(Rc::new(out)))
}
fn make_bytevector(_: &mut Vm, a: &[V]) -> R<V> {
    let k = check_size("make-bytevector", &a[0])?;
    let fill = match a.get(1) {
        Some(x) => check_byte("make-bytevector", x)?,
        None => 0,
    };
    Ok(V::Bytes(Rc::new(vec![fill; k])))
}
fn bytevector_length(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Int(check_bytes("bytevector-length", &a[0])?.len() as i64))
}
fn bytevector_ref(_: &mut Vm, a: &[V]) -> R<V> {
    let b = check_bytes("bytevector-u8-ref", &a[0])?;
    let i = check_index("bytevector-u8-ref", &a[1], b.len(), false)?;
    Ok(V::Int(b[i] as i64))
}

// Strings, symbols, characters ---------------------------------------------------------------------

fn string_length(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Int(check_str("string-length", &a[0])?.chars().count() as i64))
}
fn string_ref(_: &mut Vm, a: &[V]) -> R<V> {
    let s = check_str("string-ref", &a[0])?;
    let cs: Vec<char> = s.chars().collect();
    let i = check_index("string-ref", &a[1], cs.len(), false)?;
    Ok(V::Char(cs[i] as u32))
}
fn make_string(_: &mut Vm, a: &[V]) -> R<V> {
    let k = check_size("make-string", &a[0])?;
    let fill = match a.get(1) {
        Some(x) => check_char("make-string", x)?,
        None => 32,
    };
    let c = char::from_u32(fill).unwrap_or(' ');
    Ok(str_from(&vec![c; k]))
}
fn string_append(_: &mut Vm, a: &[V]) -> R<V> {
    let mut out = String::new();
    for x in a {
        out.push_str(&check_str("string-append", x)?);
    }
    Ok(V::str(&out))
}
fn substring_like(who: &str, a: &[V]) -> R<V> {
    let s = check_str(who, &a[0])?;
    let cs: Vec<char> = s.chars().collect();
    let (st, e) = range(who, a, 1, cs.len())?;
    Ok(str_from(&cs[st..e]))
}
fn string_copy(_: &mut Vm, a: &[V]) -> R<V> {
    substring_like("string-copy", a)
}
fn substring(_: &mut Vm, a: &[V]) -> R<V> {
    substring_like("substring", a)
}
// Case mapping and the character predicates answer from crate::unicode (our tables of the
// contract's Unicode version), not from std's char methods (the compiling rustc's version).
fn string_upcase(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::str(&unicode::upcase_string(&check_str("string-upcase", &a[0])?)))
}
fn string_downcase(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::str(&unicode::downcase_string(&check_str("string-downcase", &a[0])?)))
}
fn string_foldcase(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::str(&unicode::foldcase_string(&check_str("string-foldcase", &a[0])?)))
}
fn str_chain(who: &str, a: &[V], fold: bool, holds: fn(Ordering) -> bool) -> R<V> {
    let key = |s: Text| -> String {
        if fold {
            unicode::foldcase_string(&s)
        } else {
            s.to_string()
        }
    };
    let mut result = true;
    let mut prev = key(check_str(who, &a[0])?);
    for x in &a[1..] {
        let cur = key(check_str(who, x)?);
        // Rust compares strings by UTF-8 bytes, which is code-point order.
        if result && !holds(prev.as_str().cmp(cur.as_str())) {
            result = false;
        }
        prev = cur;
    }
    Ok(V::Bool(result))
}
macro_rules! strcmp {
    ($name:ident, $who:expr, $fold:expr, $holds:expr) => {
        fn $name(_: &mut Vm, a: &[V]) -> R<V> {
            str_chain($who, a, $fold, $holds)
        }
    };
}
strcmp!(string_eq, "string=?", false, |o| o == Ordering::Equal);
strcmp!(string_lt, "string<?", false, |o| o == Ordering::Less);
strcmp!(string_le, "string<=?", false, |o| o != Ordering::Greater);
strcmp!(string_gt, "string>?", false, |o| o == Ordering::Greater);
strcmp!(string_ge, "string>=?", false, |o| o != Ordering::Less);
strcmp!(string_ci_eq, "string-ci=?", true, |o| o == Ordering::Equal);
strcmp!(string_ci_lt, "string-ci<?", true, |o| o == Ordering::Less);
strcmp!(string_ci_le, "string-ci<=?", true, |o| o != Ordering::Greater);
strcmp!(string_ci_gt, "string-ci>?", true, |o| o == Ordering::Greater);
strcmp!(string_ci_ge, "string-ci>=?", true, |o| o != Ordering::Less);

fn string_to_symbol(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Sym(check_str("string->symbol", &a[0])?))
}
fn symbol_to_string(_: &mut Vm, a: &[V]) -> R<V> {
    match &a[0] {
        V::Sym(s) => Ok(V::Str(s.clone())),
        x => type_err("symbol->string", "symbol", x),
    }
}

fn char_to_integer(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Int(check_char("char->integer", &a[0])? as i64))
}
fn integer_to_char(_: &mut Vm, a: &[V]) -> R<V> {
    if let V::Int(i) = a[0] {
        if (0..=0xd7ff).contains(&i) || (0xe000..=0x10ffff).contains(&i) {
            return Ok(V::Char(i as u32));
        }
    }
    type_err("integer->char", "Unicode scalar value (0..#xD7FF or #xE000..#x10FFFF)", &a[0])
}
fn ch(c: u32) -> char {
    char::from_u32(c).unwrap_or('\u{fffd}')
}
macro_rules! charpred {
    ($name:ident, $who:expr, $test:expr) => {
        fn $name(_: &mut Vm, a: &[V]) -> R<V> {
            Ok(V::Bool($test(check_char($who, &a[0])?)))
        }
    };
}
charpred!(char_alphabetic, "char-alphabetic?", unicode::is_alphabetic);
charpred!(char_numeric, "char-numeric?", unicode::is_numeric);
charpred!(char_whitespace, "char-whitespace?", unicode::is_white_space);
charpred!(char_upper, "char-upper-case?", unicode::is_upper_case);
charpred!(char_lower, "char-lower-case?", unicode::is_lower_case);
fn char_upcase(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Char(unicode::upcase(check_char("char-upcase", &a[0])?)))
}
fn char_downcase(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Char(unicode::downcase(check_char("char-downcase", &a[0])?)))
}
fn char_foldcase(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(V::Char(unicode::foldcase(check_char("char-foldcase", &a[0])?)))
}
fn char_chain(who: &str, a: &[V], fold: bool, holds: fn(Ordering) -> bool) -> R<V> {
    let key = |c: u32| if fold { unicode::foldcase(c) } else { c };
    let mut result = true;
    let mut prev = key(check_char(who, &a[0])?);
    for x in &a[1..] {
        let cur = key(check_char(who, x)?);
        if result && !holds(prev.cmp(&cur)) {
            result = false;
        }
        prev = cur;
    }
    Ok(V::Bool(result))
}
macro_rules! charcmp {
    ($name:ident, $who:expr, $fold:expr, $holds:expr) => {
        fn $name(_: &mut Vm, a: &[V]) -> R<V> {
            char_chain($who, a, $fold, $holds)
        }
    };
}
charcmp!(char_eq, "char=?", false, |o| o == Ordering::Equal);
charcmp!(char_lt, "char<?", false, |o| o == Ordering::Less);
charcmp!(char_le, "char<=?", false, |o| o != Ordering::Greater);
charcmp!(char_gt, "char>?", false, |o| o == Ordering::Greater);
charcmp!(char_ge, "char>=?", false, |o| o != Ordering::Less);
charcmp!(char_ci_eq, "char-ci=?", true, |o| o == Ordering::Equal);
charcmp!(char_ci_lt, "char-ci<?", true, |o| o == Ordering::Less);
charcmp!(char_ci_le, "char-ci<=?", true, |o| o != Ordering::Greater);
charcmp!(char_ci_gt, "char-ci>?", true, |o| o == Ordering::Greater);
charcmp!(char_ci_ge, "char-ci>=?", true, |o| o != Ordering::Less);

// Error objects, output, compat ------------------------------------------------------------------

fn error_object_message(_: &mut Vm, a: &[V]) -> R<V> {
    match &a[0] {
        V::Err(e) => Ok(V::Str(e.message.clone())),
        x => type_err("error-object-message", "error object", x),
    }
}
fn error_object_irritants(_: &mut Vm, a: &[V]) -> R<V> {
    match &a[0] {
        V::Err(e) => Ok(list_from(e.irritants.clone(), V::Nil)),
        x => type_err("error-object-irritants", "error object", x),
    }
}
fn display(vm: &mut Vm, a: &[V]) -> R<V> {
    let s = display_value(&vm.prim_names, &a[0]);
    vm.write_out(&s)?;
    Ok(V::none())
}
fn write(vm: &mut Vm, a: &[V]) -> R<V> {
    let s = write_value(&vm.prim_names, &a[0]);
    vm.write_out(&s)?;
    Ok(V::none())
}
fn newline(vm: &mut Vm, _: &[V]) -> R<V> {
    vm.write_out("\n")?;
    Ok(V::none())
}
fn println(vm: &mut Vm, a: &[V]) -> R<V> {
    let mut s = display_value(&vm.prim_names, &a[0]);
    s.push('\n');
    vm.write_out(&s)?;
    Ok(V::none())
}
fn percent(vm: &mut Vm, a: &[V]) -> R<V> {
    vm.warn("W330");
    modulo(vm, a)
}
fn list_first(vm: &mut Vm, a: &[V]) -> R<V> {
    vm.warn("W331");
    match &a[0] {
        V::Pair(p) => Ok(p.car.clone()),
        x => pair_err("list-first", x),
    }
}
fn list_rest(vm: &mut Vm, a: &[V]) -> R<V> {
    vm.warn("W331");
    match &a[0] {
        V::Pair(p) => Ok(p.cdr.clone()),
        x => pair_err("list-rest", x),
    }
}
fn values(_: &mut Vm, a: &[V]) -> R<V> {
    Ok(values_of(a.to_vec()))
}

// Higher-order -------------------------------------------------------------------------------------

fn map(vm: &mut Vm, a: &[V]) -> R<V> {
    check_proc("map", &a[0])?;
    let items = check_list("map", &a[1])?;
    let mut out = Vec::with_capacity(items.len());
    for x in items {
        out.push(call_for_one(vm, "map", &a[0], vec![x])?);
    }
    Ok(list_from(out, V::Nil))
}
fn for_each(vm: &mut Vm, a: &[V]) -> R<V> {
    check_proc("for-each", &a[0])?;
    for x in check_list("for-each", &a[1])? {
        vm.apply(&a[0], vec![x])?;
    }
    Ok(V::none())
}
fn filter(vm: &mut Vm, a: &[V]) -> R<V> {
    check_proc("filter", &a[0])?;
    let mut out = Vec::new();
    for x in check_list("filter", &a[1])? {
        if call_for_one(vm, "filter", &a[0], vec![x.clone()])?.truthy() {
            out.push(x);
        }
    }
    Ok(list_from(out, V::Nil))
}
fn fold_left(vm: &mut Vm, a: &[V]) -> R<V> {
    check_proc("fold-left", &a[0])?;
    let mut acc = a[1].clone();
    for x in check_list("fold-left", &a[2])? {
        acc = call_for_one(vm, "fold-left", &a[0], vec![acc, x])?;
    }
    Ok(acc)
}
fn fold_right(vm: &mut Vm, a: &[V]) -> R<V> {
    check_proc("fold-right", &a[0])?;
    let items = check_list("fold-right", &a[2])?;
    let mut acc = a[1].clone();
    for x in items.into_iter().rev() {
        acc = call_for_one(vm, "fold-right", &a[0], vec![x, acc])?;
    }
    Ok(acc)
}
fn all_p(vm: &mut Vm, a: &[V]) -> R<V> {
    check_proc("all?", &a[0])?;
    for x in check_list("all?", &a[1])? {
        if !call_for_one(vm, "all?", &a[0], vec![x])?.truthy() {
            return Ok(V::Bool(false));
        }
    }
    Ok(V::Bool(true))
}
fn any_p(vm: &mut Vm, a: &[V]) -> R<V> {
    check_proc("any?", &a[0])?;
    for x in check_list("any?", &a[1])? {
        if call_for_one(vm, "any?", &a[0], vec![x])?.truthy() {
            return Ok(V::Bool(true));
        }
    }
    Ok(V::Bool(false))
}
fn string_map(vm: &mut Vm, a: &[V]) -> R<V> {
    check_proc("string-map", &a[0])?;
    let s = check_str("string-map", &a[1])?;
    let mut out = Vec::new();
    for c in s.chars() {
        match call_for_one(vm, "string-map", &a[0], vec![V::Char(c as u32)])? {
            V::Char(r) => out.push(ch(r)),
            other => return type_err("string-map", "character result", &other),
        }
    }
    Ok(str_from(&out))
}
fn string_for_each(vm: &mut Vm, a: &[V]) -> R<V> {
    check_proc("string-for-each", &a[0])?;
    let s = check_str("string-for-each", &a[1])?;
    for c in s.chars() {
        vm.apply(&a[0], vec![V::Char(c as u32)])?;
    }
    Ok(V::none())
}
fn vector_map(vm: &mut Vm, a: &[V]) -> R<V> {
    check_proc("vector-map", &a[0])?;
    let items = check_vec("vector-map", &a[1])?.borrow().clone();
    let mut out = Vec::new();
    for x in items {
        out.push(call_for_one(vm, "vector-map", &a[0], vec![x])?);
    }
    Ok(V::Vector(Rc::new(std::cell::RefCell::new(out))))
}
fn vector_for_each(vm: &mut Vm, a: &[V]) -> R<V> {
    check_proc("vector-for-each", &a[0])?;
    let items = check_vec("vector-for-each", &a[1])?.borrow().clone();
    for x in items {
        vm.apply(&a[0], vec![x])?;
    }
    Ok(V::none())
}

fn machine_only(_: &mut Vm, _: &[V]) -> R<V> {
    panic!("control primitive called outside the machine")
}

fn unsupported(_: &mut Vm, _: &[V]) -> R<V> {
    err("unsupported-primitive", "this primitive is not implemented by the Topaz VM".to_string(), vec![])
}

fn cxr_dispatch(name: &str) -> Option<PrimFn> {
    macro_rules! cx {
        ($($n:literal => $f:ident),*) => {
            $(fn $f(_: &mut Vm, a: &[V]) -> R<V> { cxr($n, &a[0]) })*
            return match name { $($n => Some($f as PrimFn),)* _ => None };
        };
    }
    cx!("caar" => caar, "cadr" => cadr, "cdar" => cdar, "cddr" => cddr,
        "caaar" => caaar, "caadr" => caadr, "cadar" => cadar, "caddr" => caddr,
        "cdaar" => cdaar, "cdadr" => cdadr, "cddar" => cddar, "cdddr" => cdddr,
        "caaaar" => caaaar, "caaadr" => caaadr, "caadar" => caadar, "caaddr" => caaddr,
        "cadaar" => cadaar, "cadadr" => cadadr, "caddar" => caddar, "cadddr" => cadddr,
        "cdaaar" => cdaaar, "cdaadr" => cdaadr, "cdadar" => cdadar, "cdaddr" => cdaddr,
        "cddaar" => cddaar, "cddadr" => cddadr, "cdddar" => cdddar, "cddddr" => cddddr);
}

/// The implementation and control kind of an identity group; `None` when Topaz lacks it.
pub fn lookup(group: &str) -> (PrimFn, Control, bool) {
    let control = match group {
        "apply" => Control::Apply,
        "call/cc" | "call-with-current-continuation" => Control::CallCc,
        "call-with-values" => Control::CallWithValues,
        "dynamic-wind" => Control::DynamicWind,
        "with-exception-handler" => Control::WithHandler,
        "error" => Control::Error,
        "raise" => Control::Raise,
        "raise-continuable" => Control::RaiseContinuable,
        _ => Control::Plain,
    };
    if control != Control::Plain {
        return (machine_only, control, true);
    }
    if let Some(f) = cxr_dispatch(group) {
        return (f, Control::Plain, true);
    }
    let f: PrimFn = match group {
        "+" => plus,
        "-" => minus,
        "*" => times,
        "/" => divide,
        "<" => lt,
        "<=" => le,
        ">" => gt,
        ">=" => ge,
        "=" => num_eq,
        "abs" => abs,
        "square" => square,
        "max" => max,
        "min" => min,
        "floor" => floor,
        "ceiling" => ceiling,
        "round" => round,
        "truncate" => truncate,
        "exact" | "inexact->exact" => exact,
        "exact->inexact" | "inexact" => inexact,
        "exact?" => exact_p,
        "inexact?" => inexact_p,
        "exact-integer-sqrt" => exact_integer_sqrt,
        "expt" => expt,
        "quotient" => quotient,
        "remainder" => remainder,
        "modulo" => modulo,
        "truncate-quotient" => tq,
        "truncate-remainder" => tr,
        "truncate/" => tboth,
        "floor-quotient" => fq,
        "floor-remainder" => fr,
        "floor/" => fboth,
        "gcd" => gcd,
        "lcm" => lcm,
        "number->string" => number_to_string,
        "string->number" => string_to_number,
        "boolean?" => boolean_p,
        "bytevector?" => bytevector_p,
        "char?" => char_p,
        "number?" | "complex?" | "real?" | "rational?" => number_p,
        "integer?" => integer_p,
        "exact-integer?" => exact_integer_p,
        "empty?" => empty_p,
        "error-object?" => error_object_p,
        "list?" => list_p,
        "pair?" => pair_p,
        "procedure?" => procedure_p,
        "string?" => string_p,
        "symbol?" => symbol_p,
        "vector?" => vector_p,
        "not" => not,
        "even?" => even_p,
        "odd?" => odd_p,
        "zero?" => zero_p,
        "positive?" => positive_p,
        "negative?" => negative_p,
        "eq?" | "eqv?" => eqv_p,
        "==" | "equal?" => equal_p,
        "!=" => not_equal_p,
        "boolean=?" => boolean_eq,
        "symbol=?" => symbol_eq,
        "car" | "first" => car,
        "cdr" | "rest" => cdr,
        "cons" => cons,
        "list" => list,
        "length" => length,
        "append" => append,
        "reverse" => reverse,
        "list-copy" => list_copy,
        "list-ref" | "nth" => list_ref,
        "list-tail" => list_tail,
        "make-list" => make_list,
        "list->vector" => list_to_vector,
        "list->string" => list_to_string,
        "string->list" => string_to_list,
        "string->vector" => string_to_vector,
        "member" => member,
        "memv" => memv,
        "memq" => memq,
        "assoc" => assoc,
        "assv" => assv,
        "assq" => assq,
        "vector" => vector,
        "make-vector" => make_vector,
        "vector-length" => vector_length,
        "vector-ref" => vector_ref,
        "vector-set!" => vector_set,
        "vector->list" => vector_to_list,
        "vector->string" => vector_to_string,
        "vector-copy" => vector_copy,
        "bytevector" => bytevector,
        "make-bytevector" => make_bytevector,
        "bytevector-length" => bytevector_length,
        "bytevector-u8-ref" => bytevector_ref,
        "string-length" => string_length,
        "string-ref" => string_ref,
        "make-string" => make_string,
        "string-append" => string_append,
        "string-copy" => string_copy,
        "substring" => substring,
        "string-upcase" => string_upcase,
        "string-downcase" => string_downcase,
        "string-foldcase" => string_foldcase,
        "string=?" => string_eq,
        "string<?" => string_lt,
        "string<=?" => string_le,
        "string>?" => string_gt,
        "string>=?" => string_ge,
        "string-ci=?" => string_ci_eq,
        "string-ci<?" => string_ci_lt,
        "string-ci<=?" => string_ci_le,
        "string-ci>?" => string_ci_gt,
        "string-ci>=?" => string_ci_ge,
        "string->symbol" => string_to_symbol,
        "symbol->string" => symbol_to_string,
        "char->integer" => char_to_integer,
        "integer->char" => integer_to_char,
        "char-alphabetic?" => char_alphabetic,
        "char-numeric?" => char_numeric,
        "char-whitespace?" => char_whitespace,
        "char-upper-case?" => char_upper,
        "char-lower-case?" => char_lower,
        "char-upcase" => char_upcase,
        "char-downcase" => char_downcase,
        "char-foldcase" => char_foldcase,
        "char=?" => char_eq,
        "char<?" => char_lt,
        "char<=?" => char_le,
        "char>?" => char_gt,
        "char>=?" => char_ge,
        "char-ci=?" => char_ci_eq,
        "char-ci<?" => char_ci_lt,
        "char-ci<=?" => char_ci_le,
        "char-ci>?" => char_ci_gt,
        "char-ci>=?" => char_ci_ge,
        "error-object-message" => error_object_message,
        "error-object-irritants" => error_object_irritants,
        "display" => display,
        "write" => write,
        "newline" => newline,
        "println" => println,
        "%" => percent,
        "list-first" => list_first,
        "list-rest" => list_rest,
        "values" => values,
        "map" => map,
        "for-each" => for_each,
        "filter" => filter,
        "fold-left" | "reduce" => fold_left,
        "fold-right" => fold_right,
        "all?" => all_p,
        "any?" => any_p,
        "string-map" => string_map,
        "string-for-each" => string_for_each,
        "vector-map" => vector_map,
        "vector-for-each" => vector_for_each,
        _ => return (unsupported, Control::Plain, false),
    };
    (f, Control::Plain, true)
}

/// Whether a primitive has an effect beyond its value and the objects it allocates: it prints,
/// warns, mutates a shared object or calls a guest procedure. A plain, known primitive without
/// one is *pure* and may run inside the quick tier (`quick`), where a given-up attempt simply
/// drops what it allocated; each pure function ignores the machine it is given.
pub fn has_effect(group: &str) -> bool {
    matches!(
        group,
        "display"
            | "write"
            | "newline"
            | "println"
            | "%"
            | "list-first"
            | "list-rest"
            | "vector-set!"
            | "map"
            | "for-each"
            | "filter"
            | "fold-left"
            | "reduce"
            | "fold-right"
            | "all?"
            | "any?"
            | "string-map"
            | "string-for-each"
            | "vector-map"
            | "vector-for-each"
    )
}
