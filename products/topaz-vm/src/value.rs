//! The Topaz value model. Exact integers are `Int` (i64) while they fit and `Big` beyond (a Big
//! that fits i64 is always folded back), exact non-integral rationals are `Rat` (reduced,
//! denominator > 1), inexact reals are finite `Flo`. Pairs are immutable; vectors are shared
//! mutable cells. Everything compound is reference counted.

use crate::bigint::Big;
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

pub struct Pair {
    pub car: V,
    pub cdr: V,
}

impl Drop for Pair {
    // Long lists would recurse once per element when dropped; unlink the spine iteratively.
    fn drop(&mut self) {
        let mut next = std::mem::replace(&mut self.cdr, V::Nil);
        loop {
            let mut rc = match next {
                V::Pair(rc) => rc,
                _ => break,
            };
            // The last reference: take its tail before it goes (its own drop then finds an
            // empty tail and stops), without moving the pair out of its allocation.
            match Rc::get_mut(&mut rc) {
                Some(p) => next = std::mem::replace(&mut p.cdr, V::Nil),
                None => break,
            }
        }
    }
}

pub struct Closure {
    pub code: Rc<crate::code::Code>,
    pub env: Rc<Env>,
}

pub struct Env {
    pub parent: Option<Rc<Env>>,
    pub slots: RefCell<Slots>,
}

/// Environment slots: small frames live inline in the environment's one allocation.
pub enum Slots {
    Inline([V; 4]),
    Heap(Vec<V>),
}

impl Slots {
    pub fn new(size: usize) -> Slots {
        if size <= 4 {
            Slots::Inline([V::Nil, V::Nil, V::Nil, V::Nil])
        } else {
            Slots::Heap(vec![V::Nil; size])
        }
    }
    #[inline]
    fn as_slice(&self) -> &[V] {
        match self {
            Slots::Inline(a) => a,
            Slots::Heap(v) => v,
        }
    }
    #[inline]
    fn as_mut_slice(&mut self) -> &mut [V] {
        match self {
            Slots::Inline(a) => a,
            Slots::Heap(v) => v,
        }
    }
    pub fn get(&self, i: usize) -> Option<&V> {
        self.as_slice().get(i)
    }
    pub fn get_mut(&mut self, i: usize) -> Option<&mut V> {
        self.as_mut_slice().get_mut(i)
    }
}

impl std::ops::Index<usize> for Slots {
    type Output = V;
    #[inline]
    fn index(&self, i: usize) -> &V {
        &self.as_slice()[i]
    }
}

impl std::ops::IndexMut<usize> for Slots {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut V {
        &mut self.as_mut_slice()[i]
    }
}

pub struct Cont {
    /// Control-stack index of the capturing marker.
    pub frame: usize,
    pub active: std::cell::Cell<bool>,
}

pub struct ErrObj {
    pub message: Text,
    pub irritants: Vec<V>,
    pub code: &'static str,
    /// Where the fault that made this condition happened (runtime faults only).
    pub origin: Option<Pos>,
}

/// String and symbol text: a thin pointer (the `str` is boxed once more), so a value is two
/// words and moves in registers.
pub type Text = Rc<Box<str>>;

pub fn text(s: &str) -> Text {
    Rc::new(Box::from(s))
}

#[derive(Clone)]
pub enum V {
    Int(i64),
    Big(Rc<Big>),
    Rat(Rc<(Big, Big)>),
    Flo(f64),
    Bool(bool),
    Nil,
    Char(u32),
    Str(Text),
    Sym(Text),
    Pair(Rc<Pair>),
    Vector(Rc<RefCell<Vec<V>>>),
    Bytes(Rc<Vec<u8>>),
    Unspec,
    Prim(u16),
    Closure(Rc<Closure>),
    Cont(Rc<Cont>),
    Err(Rc<ErrObj>),
    Multi(Rc<Vec<V>>),
    Unassigned,
}

impl V {
    /// `clone` as one bitwise copy plus, for a reference-counted payload, a count increment:
    /// no per-variant reconstruction (every non-immediate variant is one `Rc`, so forgetting a
    /// clone leaves exactly the extra count the copy owns).
    #[inline(always)]
    pub fn dup(&self) -> V {
        if !self.is_immediate() {
            match self {
                // The commonest heap value, counted inline (the derived clone is a call and a
                // match over every variant).
                V::Pair(p) => unsafe { Rc::increment_strong_count(Rc::as_ptr(p)) },
                _ => std::mem::forget(self.clone()),
            }
        }
        // SAFETY: immediates are plain data; for the others the forgotten clone above gave this
        // copy its own reference count.
        unsafe { std::ptr::read(self) }
    }
    /// Plain data with nothing to count or free.
    #[inline(always)]
    pub fn is_immediate(&self) -> bool {
        matches!(self, V::Int(_) | V::Bool(_) | V::Nil | V::Flo(_) | V::Char(_) | V::Unspec | V::Prim(_) | V::Unassigned)
    }
    /// Overwrite `slot` with `v`, then let go of the old value: nothing to do for plain data, a
    /// count decrement inline for a pair referenced elsewhere, the full drop otherwise. The new
    /// value is written before any call, so it never waits in a stack temporary (a value built
    /// from narrow stores and copied as one 16-byte load stalls store forwarding).
    #[inline(always)]
    pub fn put(slot: &mut V, v: V) {
        let old = std::mem::replace(slot, v);
        match &old {
            V::Pair(p) if Rc::strong_count(p) > 1 => {
                // SAFETY: the count is above one, so this cannot free the pair; `old`'s
                // reference is given up here and `old` forgotten.
                unsafe { Rc::decrement_strong_count(Rc::as_ptr(p)) };
                std::mem::forget(old);
            }
            _ if old.is_immediate() => std::mem::forget(old),
            _ => drop(old),
        }
    }
    /// Store a fixnum: when the slot already holds one only the payload is written.
    #[inline(always)]
    pub fn put_int(slot: &mut V, i: i64) {
        match slot {
            V::Int(x) => *x = i,
            _ => V::put(slot, V::Int(i)),
        }
    }
    /// Store a boolean, as `put_int`.
    #[inline(always)]
    pub fn put_bool(slot: &mut V, b: bool) {
        match slot {
            V::Bool(x) => *x = b,
            _ => V::put(slot, V::Bool(b)),
        }
    }
    pub fn cons(a: V, d: V) -> V {
        V::Pair(Rc::new(Pair { car: a, cdr: d }))
    }
    pub fn truthy(&self) -> bool {
        !matches!(self, V::Bool(false))
    }
    pub fn is_nil(&self) -> bool {
        matches!(self, V::Nil)
    }
    pub fn is_proc(&self) -> bool {
        matches!(self, V::Prim(_) | V::Closure(_) | V::Cont(_))
    }
    pub fn none() -> V {
        V::Multi(Rc::new(Vec::new()))
    }
    pub fn from_big(b: Big) -> V {
        match b.to_i64() {
            Some(i) => V::Int(i),
            None => V::Big(Rc::new(b)),
        }
    }
    pub fn str(s: &str) -> V {
        V::Str(text(s))
    }
}

pub fn list_from(items: Vec<V>, tail: V) -> V {
    let mut out = tail;
    for v in items.into_iter().rev() {
        out = V::cons(v, out);
    }
    out
}

/// Elements of a proper list, or None.
pub fn list_items(v: &V) -> Option<Vec<V>> {
    let mut out = Vec::new();
    // Walk the spine by reference (no count traffic on the pairs passed over).
    let mut p = v;
    loop {
        match p {
            V::Pair(rc) => {
                out.push(rc.car.dup());
                p = &rc.cdr;
            }
            V::Nil => return Some(out),
            _ => return None,
        }
    }
}

/// Identity / eqv?: numbers and characters by value and exactness, the rest by reference.
pub fn eqv(a: &V, b: &V) -> bool {
    match (a, b) {
        (V::Int(x), V::Int(y)) => x == y,
        (V::Big(x), V::Big(y)) => x == y,
        (V::Rat(x), V::Rat(y)) => x.0 == y.0 && x.1 == y.1,
        (V::Flo(x), V::Flo(y)) => x.to_bits() == y.to_bits(),
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Nil, V::Nil) => true,
        (V::Unspec, V::Unspec) => true,
        (V::Char(x), V::Char(y)) => x == y,
        (V::Sym(x), V::Sym(y)) => x == y,
        (V::Str(x), V::Str(y)) => Rc::ptr_eq(x, y),
        (V::Pair(x), V::Pair(y)) => Rc::ptr_eq(x, y),
        (V::Vector(x), V::Vector(y)) => Rc::ptr_eq(x, y),
        (V::Bytes(x), V::Bytes(y)) => Rc::ptr_eq(x, y),
        (V::Prim(x), V::Prim(y)) => x == y,
        (V::Closure(x), V::Closure(y)) => Rc::ptr_eq(x, y),
        (V::Cont(x), V::Cont(y)) => Rc::ptr_eq(x, y),
        (V::Err(x), V::Err(y)) => Rc::ptr_eq(x, y),
        (V::Multi(x), V::Multi(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

/// equal?: structural over pairs, vectors, strings and bytevectors (vector cycles assumed equal).
pub fn equal(a: &V, b: &V) -> bool {
    let mut work: Vec<(V, V)> = vec![(a.clone(), b.clone())];
    let mut assumed: Vec<(usize, usize)> = Vec::new();
    while let Some((x, y)) = work.pop() {
        match (&x, &y) {
            (V::Pair(p), V::Pair(q)) => {
                if Rc::ptr_eq(p, q) {
                    continue;
                }
                work.push((p.cdr.clone(), q.cdr.clone()));
                work.push((p.car.clone(), q.car.clone()));
            }
            (V::Str(s), V::Str(t)) => {
                if s != t {
                    return false;
                }
            }
            (V::Bytes(s), V::Bytes(t)) => {
                if s != t {
                    return false;
                }
            }
            (V::Vector(s), V::Vector(t)) => {
                let key = (Rc::as_ptr(s) as usize, Rc::as_ptr(t) as usize);
                if assumed.contains(&key) {
                    continue;
                }
                let (s, t) = (s.borrow(), t.borrow());
                if s.len() != t.len() {
                    return false;
                }
                assumed.push(key);
                for i in (0..s.len()).rev() {
                    work.push((s[i].clone(), t[i].clone()));
                }
            }
            _ => {
                if !eqv(&x, &y) {
                    return false;
                }
            }
        }
    }
    true
}

/// A runtime fault as raised; position filled by whoever knows it.
pub struct LErr {
    pub code: &'static str,
    pub message: String,
    pub irritants: Vec<V>,
    pub at: Option<Pos>,
    /// The raised object when this carries an uncaught raise.
    pub payload: Option<V>,
}

pub enum Fault {
    Err(Box<LErr>),
    /// A meter axis was exhausted.
    Resource(&'static str),
    /// Transfer to control entry `target` (a call/cc or guard marker) owned by an outer run.
    Escape { target: usize, payload: V, to_guard: bool },
}

pub type R<T> = Result<T, Fault>;

pub fn err<T>(code: &'static str, message: String, irritants: Vec<V>) -> R<T> {
    Err(Fault::Err(Box::new(LErr { code, message, irritants, at: None, payload: None })))
}

pub fn err_at<T>(code: &'static str, message: String, irritants: Vec<V>, at: Option<Pos>) -> R<T> {
    Err(Fault::Err(Box::new(LErr { code, message, irritants, at, payload: None })))
}

pub fn type_err<T>(who: &str, expected: &str, got: &V) -> R<T> {
    err("E312", format!("{}: {} expected", who, expected), vec![got.clone()])
}
