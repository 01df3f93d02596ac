// One table of calls per primitive: `[call, expected]` where `expected` is the `write` form of
// the result (`values(a b)` for several values) or `!CODE` for the diagnostic the call raises.
// Arguments are literal data; `&name` stands for a procedure (see harness.ts).
// The coverage test requires every non-control row of the contract to appear here with at least
// one normal case and (unless it accepts any arguments) at least one error case.

/** A pair tree of the given depth whose leaf at each a/d path (in application order) is `L<path>`. */
function pairTree(path: string, depth: number): string {
  if (depth === 0) return `L${path}`;
  return `(${pairTree(`${path}a`, depth - 1)} . ${pairTree(`${path}d`, depth - 1)})`;
}

/** Cases for every c[ad]{2,4}r except cadr (listed by hand): the exact leaf, and E310 on a short path. */
function cxrCases(): Record<string, [string, string][]> {
  const out: Record<string, [string, string][]> = {};
  const grow = (letters: string) => {
    if (letters.length >= 2 && letters !== 'ad') {
      const name = `c${letters}r`;
      const order = letters.split('').reverse().join('');
      out[name] = [
        [`(${name} ${pairTree('', letters.length)})`, `L${order}`],
        [`(${name} (1))`, '!E310'],
        [`(${name} 5)`, '!E310'],
      ];
    }
    if (letters.length < 4) {
      grow(`${letters}a`);
      grow(`${letters}d`);
    }
  };
  grow('');
  return out;
}

export const CASES: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>> = {
  ...cxrCases(),
  // ---------------------------------------------------------------- equality
  'eq?': [
    ['(eq? a a)', '#t'],
    ['(eq? a b)', '#f'],
    ['(eq? 100000000000000000000 100000000000000000000)', '#t'],
    ['(eq? 1.5 1.5)', '#t'],
    ['(eq? #\\x #\\x)', '#t'],
    ['(eq? "a" "a")', '#f'],
    ['(eq? () ())', '#t'],
    ['(eq? 1)', '!E302'],
  ],
  'eqv?': [
    ['(eqv? 2 2)', '#t'],
    ['(eqv? 2 2.0)', '#f'],
    ['(eqv? 0.0 -0.0)', '#f'],
    ['(eqv? 1/2 2/4)', '#t'],
    ['(eqv? (1) (1))', '#f'],
    ['(eqv? 1 2 3)', '!E302'],
  ],
  'equal?': [
    ['(equal? (1 (2 #(3 "x")) . 4) (1 (2 #(3 "x")) . 4))', '#t'],
    ['(equal? "ab" "ab")', '#t'],
    ['(equal? #u8(1 2) #u8(1 2))', '#t'],
    ['(equal? #(1 2) #(1 3))', '#f'],
    ['(equal? 2 2.0)', '#f'],
    ['(equal? 1)', '!E302'],
  ],
  '==': [
    ['(== (1 2) (1 2))', '#t'],
    ['(== (1 2) (1 3))', '#f'],
    ['(== 1 2 3)', '!E302'],
  ],
  '!=': [
    ['(!= (1 2) (1 2))', '#f'],
    ['(!= "a" "b")', '#t'],
    ['(!= 1)', '!E302'],
  ],
  'boolean=?': [
    ['(boolean=? #t #t #t)', '#t'],
    ['(boolean=? #t #f)', '#f'],
    ['(boolean=? #t 1)', '!E312'],
    ['(boolean=? #t)', '!E302'],
  ],
  'symbol=?': [
    ['(symbol=? a a a)', '#t'],
    ['(symbol=? a b)', '#f'],
    ['(symbol=? a "a")', '!E312'],
    ['(symbol=? a)', '!E302'],
  ],

  // ---------------------------------------------------------------- compat (deprecated)
  '%': [
    ['(% 7 3)', '1'],
    ['(% -7 3)', '2'],
    ['(% 7 0)', '!E313'],
    ['(% 7 a)', '!E312'],
  ],
  'list-first': [
    ['(list-first (1 2))', '1'],
    ['(list-first ())', '!E310'],
  ],
  'list-rest': [
    ['(list-rest (1 2))', '(2)'],
    ['(list-rest 5)', '!E310'],
  ],

  // ---------------------------------------------------------------- numeric
  '+': [
    ['(+)', '0'],
    ['(+ 1 2)', '3'],
    ['(+ 1 2 3 4)', '10'],
    ['(+ 9007199254740991 1)', '9007199254740992'],
    ['(+ 9007199254740992 -1)', '9007199254740991'],
    ['(+ 1/2 1/3)', '5/6'],
    ['(+ 1/2 1/2)', '1'],
    ['(+ 1 0.5)', '1.5'],
    ['(+ 0.1 0.2)', '0.30000000000000004'],
    ['(+ 1e308 1e308)', '!E314'],
    ['(+ 1 "a")', '!E312'],
    ['(+ a)', '!E312'],
  ],
  '-': [
    ['(- 5)', '-5'],
    ['(- 0)', '0'],
    ['(- 10 1 2)', '7'],
    ['(- -9007199254740991 2)', '-9007199254740993'],
    ['(- 1/2)', '-1/2'],
    ['(- 1.5)', '-1.5'],
    ['(- 2 2.0)', '0.0'],
    ['(-)', '!E302'],
    ['(- 1 #t)', '!E312'],
  ],
  '*': [
    ['(*)', '1'],
    ['(* 6 7)', '42'],
    ['(* -1 0)', '0'],
    ['(* 4294967296 4294967296)', '18446744073709551616'],
    ['(* 2/3 3/2)', '1'],
    ['(* 1.5 2)', '3.0'],
    ['(* 1e200 1e200)', '!E314'],
    ['(* 2 x)', '!E312'],
  ],
  '/': [
    ['(/ 6 3)', '2'],
    ['(/ 1 3)', '1/3'],
    ['(/ 2)', '1/2'],
    ['(/ -6 4)', '-3/2'],
    ['(/ 1.0 4)', '0.25'],
    ['(/ 1 0)', '!E313'],
    ['(/ 1.5 0.0)', '!E313'],
    ['(/ 0)', '!E313'],
    ['(/ 1 "2")', '!E312'],
    ['(/)', '!E302'],
  ],
  '<': [
    ['(< 1 2 3)', '#t'],
    ['(< 1 3 2)', '#f'],
    ['(< 1/3 0.34)', '#t'],
    ['(< 9007199254740993 9007199254740992.0)', '#f'],
    ['(< 1)', '!E302'],
    ['(< 1 a)', '!E312'],
    ['(< 2 1 a)', '!E312'],
  ],
  '<=': [
    ['(<= 1 1 2)', '#t'],
    ['(<= 2 1)', '#f'],
    ['(<= 1 "x")', '!E312'],
  ],
  '=': [
    ['(= 1 1.0 2/2)', '#t'],
    ['(= 1/3 0.3333333333333333)', '#f'],
    ['(= 100000000000000000000 1e20)', '#t'],
    ['(= 1 a)', '!E312'],
  ],
  '>': [
    ['(> 3 2 1)', '#t'],
    ['(> 1 2)', '#f'],
    ['(> 1 #f)', '!E312'],
  ],
  '>=': [
    ['(>= 3 3 1)', '#t'],
    ['(>= 1 2)', '#f'],
    ['(>= a 1)', '!E312'],
  ],
  abs: [
    ['(abs -5)', '5'],
    ['(abs -9007199254740993)', '9007199254740993'],
    ['(abs -1/2)', '1/2'],
    ['(abs -2.5)', '2.5'],
    ['(abs a)', '!E312'],
  ],
  ceiling: [
    ['(ceiling 7/2)', '4'],
    ['(ceiling -7/2)', '-3'],
    ['(ceiling 1.2)', '2.0'],
    ['(ceiling 5)', '5'],
    ['(ceiling a)', '!E312'],
  ],
  floor: [
    ['(floor 7/2)', '3'],
    ['(floor -7/2)', '-4'],
    ['(floor -1.5)', '-2.0'],
    ['(floor 5)', '5'],
    ['(floor "1")', '!E312'],
  ],
  round: [
    ['(round 7/2)', '4'],
    ['(round 5/2)', '2'],
    ['(round -5/2)', '-2'],
    ['(round 2.5)', '2.0'],
    ['(round 3.5)', '4.0'],
    ['(round -2.5)', '-2.0'],
    ['(round 1.2)', '1.0'],
    ['(round a)', '!E312'],
  ],
  truncate: [
    ['(truncate 7/2)', '3'],
    ['(truncate -7/2)', '-3'],
    ['(truncate -1.7)', '-1.0'],
    ['(truncate a)', '!E312'],
  ],
  exact: [
    ['(exact 2.5)', '5/2'],
    ['(exact 2.0)', '2'],
    ['(exact 0.1)', '3602879701896397/36028797018963968'],
    ['(exact 1e20)', '100000000000000000000'],
    ['(exact 7)', '7'],
    ['(exact a)', '!E312'],
  ],
  'inexact->exact': [
    ['(inexact->exact 0.5)', '1/2'],
    ['(inexact->exact #t)', '!E312'],
  ],
  'exact->inexact': [
    ['(exact->inexact 1/4)', '0.25'],
    ['(exact->inexact 5)', '5.0'],
    ['(exact->inexact 1/3)', '0.3333333333333333'],
    ['(exact->inexact 100000000000000000000000)', '1.0e23'],
    [`(exact->inexact 1${'0'.repeat(400)})`, '!E314'],
    [`(exact->inexact 1/1${'0'.repeat(400)})`, '0.0'],
    ['(exact->inexact a)', '!E312'],
  ],
  inexact: [
    ['(inexact 1/8)', '0.125'],
    ['(inexact "1")', '!E312'],
  ],
  'exact?': [
    ['(exact? 1/2)', '#t'],
    ['(exact? 0.5)', '#f'],
    ['(exact? a)', '!E312'],
  ],
  'inexact?': [
    ['(inexact? 0.5)', '#t'],
    ['(inexact? 100000000000000000000)', '#f'],
    ['(inexact? a)', '!E312'],
  ],
  'exact-integer-sqrt': [
    ['(exact-integer-sqrt 17)', 'values(4 1)'],
    ['(exact-integer-sqrt 0)', 'values(0 0)'],
    ['(exact-integer-sqrt 100000000000000000000)', 'values(10000000000 0)'],
    ['(exact-integer-sqrt 9007199254740993)', 'values(94906265 118490768)'],
    ['(exact-integer-sqrt 1000000000000000000000000000000000001)', 'values(1000000000000000000 1)'],
    ['(exact-integer-sqrt -1)', '!E312'],
    ['(exact-integer-sqrt 4.0)', '!E312'],
  ],
  expt: [
    ['(expt 2 10)', '1024'],
    ['(expt 2 100)', '1267650600228229401496703205376'],
    ['(expt 2 -2)', '1/4'],
    ['(expt 2/3 3)', '8/27'],
    ['(expt 2.0 3)', '8.0'],
    ['(expt 0 0)', '1'],
    ['(expt -1 100000000000000000001)', '-1'],
    ['(expt 0 -1)', '!E313'],
    ['(expt 0.0 -1)', '!E313'],
    ['(expt 10.0 400)', '!E314'],
    ['(expt 2 0.5)', '!E312'],
    ['(expt a 2)', '!E312'],
  ],
  quotient: [
    ['(quotient 17 5)', '3'],
    ['(quotient -17 5)', '-3'],
    ['(quotient 17.0 5)', '3.0'],
    ['(quotient 100000000000000000000 3)', '33333333333333333333'],
    ['(quotient 1 0)', '!E313'],
    ['(quotient 1.5 1)', '!E312'],
  ],
  remainder: [
    ['(remainder 17 5)', '2'],
    ['(remainder -17 5)', '-2'],
    ['(remainder -4 2)', '0'],
    ['(remainder 1 0)', '!E313'],
    ['(remainder a 1)', '!E312'],
  ],
  modulo: [
    ['(modulo 17 5)', '2'],
    ['(modulo -17 5)', '3'],
    ['(modulo 17 -5)', '-3'],
    ['(modulo 100000000000000000001 -10)', '-9'],
    ['(modulo 1 0)', '!E313'],
    ['(modulo 1/2 1)', '!E312'],
  ],
  'truncate-quotient': [
    ['(truncate-quotient -7 2)', '-3'],
    ['(truncate-quotient 7 0)', '!E313'],
  ],
  'truncate-remainder': [
    ['(truncate-remainder -7 2)', '-1'],
    ['(truncate-remainder 7 a)', '!E312'],
  ],
  'truncate/': [
    ['(truncate/ -7 2)', 'values(-3 -1)'],
    ['(truncate/ 7 0)', '!E313'],
  ],
  'floor-quotient': [
    ['(floor-quotient -7 2)', '-4'],
    ['(floor-quotient 7 0)', '!E313'],
  ],
  'floor-remainder': [
    ['(floor-remainder -7 2)', '1'],
    ['(floor-remainder 7.5 2)', '!E312'],
  ],
  'floor/': [
    ['(floor/ -7 2)', 'values(-4 1)'],
    ['(floor/ 7 -2)', 'values(-4 -1)'],
    ['(floor/ 7.0 2)', 'values(3.0 1.0)'],
    ['(floor/ 7 0)', '!E313'],
  ],
  gcd: [
    ['(gcd)', '0'],
    ['(gcd 12 18)', '6'],
    ['(gcd -12 18 8)', '2'],
    ['(gcd 0 5)', '5'],
    ['(gcd 12.0 18)', '6.0'],
    ['(gcd 1/2 3)', '!E312'],
  ],
  lcm: [
    ['(lcm)', '1'],
    ['(lcm 4 6)', '12'],
    ['(lcm -4 6)', '12'],
    ['(lcm 0 5)', '0'],
    ['(lcm a)', '!E312'],
  ],
  max: [
    ['(max 1 3 2)', '3'],
    ['(max 1 2.0)', '2.0'],
    ['(max 3 2.0)', '3.0'],
    ['(max 1/2 1/3)', '1/2'],
    ['(max)', '!E302'],
    ['(max 1 a)', '!E312'],
  ],
  min: [
    ['(min 3 1 2)', '1'],
    ['(min 1 2.0)', '1.0'],
    ['(min a)', '!E312'],
  ],
  square: [
    ['(square 5)', '25'],
    ['(square 1/2)', '1/4'],
    ['(square 1.5)', '2.25'],
    ['(square 100000000)', '10000000000000000'],
    ['(square a)', '!E312'],
  ],
  'number->string': [
    ['(number->string 42)', '"42"'],
    ['(number->string 255 16)', '"ff"'],
    ['(number->string -5 2)', '"-101"'],
    ['(number->string 1/3)', '"1/3"'],
    ['(number->string 1.5)', '"1.5"'],
    ['(number->string 1e21)', '"1.0e21"'],
    ['(number->string 1e-7)', '"1.0e-7"'],
    ['(number->string 12 3)', '!E312'],
    ['(number->string 1.5 2)', '!E312'],
    ['(number->string a)', '!E312'],
  ],
  'string->number': [
    ['(string->number "42")', '42'],
    ['(string->number "ff" 16)', '255'],
    ['(string->number "#xff")', '255'],
    ['(string->number "1/3")', '1/3'],
    ['(string->number "-1.5e2")', '-150.0'],
    ['(string->number "#e1.25")', '5/4'],
    ['(string->number "#i1/4")', '0.25'],
    ['(string->number ".5")', '0.5'],
    ['(string->number "abc")', '#f'],
    ['(string->number "1/0")', '#f'],
    ['(string->number "")', '#f'],
    ['(string->number "12345678901234567890")', '12345678901234567890'],
    ['(string->number "+inf.0")', '!E314'],
    ['(string->number "1e400")', '!E314'],
    ['(string->number 5)', '!E312'],
    ['(string->number "1" 7)', '!E312'],
  ],

  // ---------------------------------------------------------------- predicate
  'boolean?': [
    ['(boolean? #f)', '#t'],
    ['(boolean? 0)', '#f'],
    ['(boolean?)', '!E302'],
  ],
  'bytevector?': [
    ['(bytevector? #u8(1))', '#t'],
    ['(bytevector? #(1))', '#f'],
    ['(bytevector? 1 2)', '!E302'],
  ],
  'char?': [
    ['(char? #\\a)', '#t'],
    ['(char? "a")', '#f'],
    ['(char?)', '!E302'],
  ],
  'complex?': [
    ['(complex? 1.5)', '#t'],
    ['(complex? a)', '#f'],
    ['(complex?)', '!E302'],
  ],
  'real?': [
    ['(real? 1/2)', '#t'],
    ['(real? "1")', '#f'],
    ['(real?)', '!E302'],
  ],
  'rational?': [
    ['(rational? 0.5)', '#t'],
    ['(rational? #t)', '#f'],
    ['(rational?)', '!E302'],
  ],
  'number?': [
    ['(number? 100000000000000000000)', '#t'],
    ['(number? a)', '#f'],
    ['(number?)', '!E302'],
  ],
  'integer?': [
    ['(integer? 2.0)', '#t'],
    ['(integer? 5)', '#t'],
    ['(integer? 1/2)', '#f'],
    ['(integer? "1")', '#f'],
    ['(integer?)', '!E302'],
  ],
  'exact-integer?': [
    ['(exact-integer? 5)', '#t'],
    ['(exact-integer? 5.0)', '#f'],
    ['(exact-integer?)', '!E302'],
  ],
  'empty?': [
    ['(empty? ())', '#t'],
    ['(empty? (1))', '#f'],
    ['(empty?)', '!E302'],
  ],
  'null?': [
    ['(null? ())', '#t'],
    ['(null? #f)', '#f'],
    ['(null? 1 2)', '!E302'],
  ],
  'error-object?': [
    ['(error-object? &err)', '#t'],
    ['(error-object? 1)', '#f'],
    ['(error-object?)', '!E302'],
  ],
  'list?': [
    ['(list? (1 2))', '#t'],
    ['(list? ())', '#t'],
    ['(list? (1 . 2))', '#f'],
    ['(list?)', '!E302'],
  ],
  'pair?': [
    ['(pair? (1 . 2))', '#t'],
    ['(pair? ())', '#f'],
    ['(pair?)', '!E302'],
  ],
  'procedure?': [
    ['(procedure? &car)', '#t'],
    ['(procedure? car)', '#f'],
    ['(procedure?)', '!E302'],
  ],
  'string?': [
    ['(string? "")', '#t'],
    ['(string? #\\a)', '#f'],
    ['(string?)', '!E302'],
  ],
  'symbol?': [
    ['(symbol? a)', '#t'],
    ['(symbol? "a")', '#f'],
    ['(symbol?)', '!E302'],
  ],
  'vector?': [
    ['(vector? #())', '#t'],
    ['(vector? (1))', '#f'],
    ['(vector?)', '!E302'],
  ],
  not: [
    ['(not #f)', '#t'],
    ['(not 0)', '#f'],
    ['(not ())', '#f'],
    ['(not)', '!E302'],
  ],
  'even?': [
    ['(even? 4)', '#t'],
    ['(even? -3)', '#f'],
    ['(even? 100000000000000000000)', '#t'],
    ['(even? 4.0)', '#t'],
    ['(even? 1.5)', '!E312'],
    ['(even? a)', '!E312'],
  ],
  'odd?': [
    ['(odd? 3)', '#t'],
    ['(odd? 100000000000000000001)', '#t'],
    ['(odd? 2.0)', '#f'],
    ['(odd? 1/2)', '!E312'],
  ],
  'zero?': [
    ['(zero? 0)', '#t'],
    ['(zero? 0.0)', '#t'],
    ['(zero? -0.0)', '#t'],
    ['(zero? 1/2)', '#f'],
    ['(zero? a)', '!E312'],
  ],
  'positive?': [
    ['(positive? 1/2)', '#t'],
    ['(positive? -1.5)', '#f'],
    ['(positive? 0)', '#f'],
    ['(positive? a)', '!E312'],
  ],
  'negative?': [
    ['(negative? -100000000000000000000)', '#t'],
    ['(negative? 0.0)', '#f'],
    ['(negative? "x")', '!E312'],
  ],

  // ---------------------------------------------------------------- aggregate
  car: [
    ['(car (1 2))', '1'],
    ['(car ())', '!E310'],
    ['(car 5)', '!E310'],
    ['(car)', '!E302'],
  ],
  cdr: [
    ['(cdr (1 2))', '(2)'],
    ['(cdr (1 . 2))', '2'],
    ['(cdr ())', '!E310'],
  ],
  first: [
    ['(first (a b))', 'a'],
    ['(first #(1))', '!E310'],
  ],
  rest: [
    ['(rest (a b))', '(b)'],
    ['(rest "ab")', '!E310'],
  ],
  cons: [
    ['(cons 1 2)', '(1 . 2)'],
    ['(cons 1 (2))', '(1 2)'],
    ['(cons 1)', '!E302'],
  ],
  cadr: [
    ['(cadr (1 2 3))', '2'],
    ['(cadr (1))', '!E310'],
  ],
  list: [
    ['(list)', '()'],
    ['(list 1 "a" #\\b)', '(1 "a" #\\b)'],
  ],
  length: [
    ['(length ())', '0'],
    ['(length (1 2 3))', '3'],
    ['(length (1 . 2))', '!E312'],
    ['(length 5)', '!E312'],
  ],
  append: [
    ['(append)', '()'],
    ['(append (1) (2 3) () (4))', '(1 2 3 4)'],
    ['(append (1) 2)', '(1 . 2)'],
    ['(append 5)', '5'],
    ['(append 1 (2))', '!E312'],
    ['(append (1 . 2) (3))', '!E312'],
  ],
  reverse: [
    ['(reverse (1 2 3))', '(3 2 1)'],
    ['(reverse ())', '()'],
    ['(reverse (1 . 2))', '!E312'],
  ],
  'list-copy': [
    ['(list-copy (1 2 3))', '(1 2 3)'],
    ['(list-copy (1 2 . 3))', '(1 2 . 3)'],
    ['(list-copy 7)', '7'],
    ['(list-copy)', '!E302'],
  ],
  'list-ref': [
    ['(list-ref (a b c) 2)', 'c'],
    ['(list-ref (a b c) 3)', '!E311'],
    ['(list-ref (a b . c) 2)', '!E312'],
    ['(list-ref (a) -1)', '!E312'],
    ['(list-ref (a) 1.0)', '!E312'],
  ],
  nth: [
    ['(nth (a b c) 0)', 'a'],
    ['(nth () 0)', '!E311'],
  ],
  'list-tail': [
    ['(list-tail (1 2 3) 1)', '(2 3)'],
    ['(list-tail (1 2 3) 3)', '()'],
    ['(list-tail (1 2 . 3) 2)', '3'],
    ['(list-tail (1) 2)', '!E311'],
    ['(list-tail (1) a)', '!E312'],
  ],
  'make-list': [
    ['(make-list 3 x)', '(x x x)'],
    ['(make-list 2)', '(#f #f)'],
    ['(make-list 0)', '()'],
    ['(make-list -1)', '!E312'],
    ['(make-list 1.0)', '!E312'],
    ['(make-list 16777217)', '!E311'],
    ['(make-list 1 2 3)', '!E302'],
  ],
  'list->vector': [
    ['(list->vector (1 2))', '#(1 2)'],
    ['(list->vector (1 . 2))', '!E312'],
  ],
  'list->string': [
    ['(list->string (#\\a #\\λ #\\x1F600))', '"aλ😀"'],
    ['(list->string ())', '""'],
    ['(list->string (#\\a 1))', '!E312'],
  ],
  'string->list': [
    ['(string->list "aλ😀")', '(#\\a #\\λ #\\😀)'],
    ['(string->list a)', '!E312'],
  ],
  'string->vector': [
    ['(string->vector "abc")', '#(#\\a #\\b #\\c)'],
    ['(string->vector "abc" 1)', '#(#\\b #\\c)'],
    ['(string->vector "abc" 1 2)', '#(#\\b)'],
    ['(string->vector "abc" 2 1)', '!E311'],
    ['(string->vector "abc" 0 4)', '!E311'],
    ['(string->vector "abc" a)', '!E312'],
  ],
  vector: [
    ['(vector)', '#()'],
    ['(vector 1 (2) "x")', '#(1 (2) "x")'],
  ],
  'make-vector': [
    ['(make-vector 2 a)', '#(a a)'],
    ['(make-vector 1)', '#(#f)'],
    ['(make-vector -1)', '!E312'],
    ['(make-vector 100000000000000000000)', '!E311'],
    ['(make-vector 16777217)', '!E311'],
  ],
  'vector-length': [
    ['(vector-length #(1 2 3))', '3'],
    ['(vector-length (1))', '!E312'],
  ],
  'vector-ref': [
    ['(vector-ref #(a b) 1)', 'b'],
    ['(vector-ref #(a b) 2)', '!E311'],
    ['(vector-ref #(a b) -1)', '!E311'],
    ['(vector-ref #(a b) 100000000000000000000)', '!E311'],
    ['(vector-ref #(a b) 0.0)', '!E312'],
    ['(vector-ref (a) 0)', '!E312'],
  ],
  'vector-set!': [
    ['(vector-set! #(a b) 0 c)', '#<unspecified>'],
    ['(vector-set! #(a) 1 c)', '!E311'],
    ['(vector-set! "a" 0 c)', '!E312'],
  ],
  'vector->list': [
    ['(vector->list #(1 2))', '(1 2)'],
    ['(vector->list (1))', '!E312'],
  ],
  'vector->string': [
    ['(vector->string #(#\\a #\\b))', '"ab"'],
    ['(vector->string #(#\\a #\\b #\\c) 1 2)', '"b"'],
    ['(vector->string #(1))', '!E312'],
    ['(vector->string #(#\\a) 0 2)', '!E311'],
  ],
  'vector-copy': [
    ['(vector-copy #(1 2 3))', '#(1 2 3)'],
    ['(vector-copy #(1 2 3) 1)', '#(2 3)'],
    ['(vector-copy #(1 2 3) 0 1)', '#(1)'],
    ['(vector-copy #(1 2 3) 4)', '!E311'],
    ['(vector-copy (1))', '!E312'],
  ],
  bytevector: [
    ['(bytevector)', '#u8()'],
    ['(bytevector 1 255)', '#u8(1 255)'],
    ['(bytevector 256)', '!E312'],
    ['(bytevector -1)', '!E312'],
  ],
  'make-bytevector': [
    ['(make-bytevector 2 7)', '#u8(7 7)'],
    ['(make-bytevector 3)', '#u8(0 0 0)'],
    ['(make-bytevector 1 300)', '!E312'],
    ['(make-bytevector a)', '!E312'],
    ['(make-bytevector 16777217)', '!E311'],
  ],
  'bytevector-length': [
    ['(bytevector-length #u8(1 2))', '2'],
    ['(bytevector-length #(1))', '!E312'],
  ],
  'bytevector-u8-ref': [
    ['(bytevector-u8-ref #u8(5 6) 1)', '6'],
    ['(bytevector-u8-ref #u8(5) 1)', '!E311'],
    ['(bytevector-u8-ref (5) 0)', '!E312'],
  ],

  // ---------------------------------------------------------------- search
  member: [
    ['(member (2) (1 (2) 3))', '((2) 3)'],
    ['(member 9 (1 2))', '#f'],
    ['(member 9 (1 . 2))', '!E312'],
  ],
  memv: [
    ['(memv 2 (1 2 3))', '(2 3)'],
    ['(memv 1.5 (1 1.5))', '(1.5)'],
    ['(memv (2) ((2)))', '#f'],
    ['(memv 1 5)', '!E312'],
  ],
  memq: [
    ['(memq b (a b c))', '(b c)'],
    ['(memq d (a b c))', '#f'],
    ['(memq a (b . c))', '!E312'],
  ],
  assoc: [
    ['(assoc (1) (((1) . one) (2 . two)))', '((1) . one)'],
    ['(assoc 3 ((1 . a)))', '#f'],
    ['(assoc 1 (1 2))', '!E312'],
  ],
  assv: [
    ['(assv 2 ((1 . a) (2 . b)))', '(2 . b)'],
    ['(assv 1/2 ((1/2 . half)))', '(1/2 . half)'],
    ['(assv 1 ((2 . a) . x))', '!E312'],
  ],
  assq: [
    ['(assq b ((a 1) (b 2)))', '(b 2)'],
    ['(assq c ((a 1)))', '#f'],
    ['(assq a 5)', '!E312'],
  ],

  // ---------------------------------------------------------------- hof
  map: [
    ['(map &double (1 2 3))', '(2 4 6)'],
    ['(map &car ((a) (b)))', '(a b)'],
    ['(map &double ())', '()'],
    ['(map 5 (1))', '!E312'],
    ['(map &double (1 . 2))', '!E312'],
    ['(map &car (1))', '!E310'],
    ['(map &boom (1))', '!E330'],
  ],
  'for-each': [
    ['(for-each &double (1 2))', 'values()'],
    ['(for-each &double 5)', '!E312'],
    ['(for-each &cons (1))', '!E302'],
  ],
  filter: [
    ['(filter &odd? (1 2 3 4 5))', '(1 3 5)'],
    ['(filter &odd? ())', '()'],
    ['(filter &odd? (1 a))', '!E312'],
    ['(filter odd? (1))', '!E312'],
  ],
  'fold-left': [
    ['(fold-left &cons-pair () (1 2 3))', '(((() . 1) . 2) . 3)'],
    ['(fold-left &+ 0 (1 2 3))', '6'],
    ['(fold-left &+ 0 5)', '!E312'],
  ],
  reduce: [
    ['(reduce &- 10 (1 2 3))', '4'],
    ['(reduce &+ 0 ())', '0'],
    ['(reduce 1 0 ())', '!E312'],
  ],
  'fold-right': [
    ['(fold-right &cons-pair () (1 2 3))', '(1 2 3)'],
    ['(fold-right &- 0 (1 2 3))', '2'],
    ['(fold-right &+ 0 (1 . 2))', '!E312'],
  ],
  'all?': [
    ['(all? &odd? (1 3))', '#t'],
    ['(all? &odd? (1 2 a))', '#f'],
    ['(all? &odd? ())', '#t'],
    ['(all? &odd? (a))', '!E312'],
  ],
  'any?': [
    ['(any? &even? (1 2 a))', '#t'],
    ['(any? &even? (1 3))', '#f'],
    ['(any? &even? ())', '#f'],
    ['(any? &even? (1 . 2))', '!E312'],
  ],
  'string-map': [
    ['(string-map &to-upper "abλ")', '"ABΛ"'],
    ['(string-map &not-a-char "a")', '!E312'],
    ['(string-map &to-upper 5)', '!E312'],
  ],
  'string-for-each': [
    ['(string-for-each &char->integer "ab")', 'values()'],
    ['(string-for-each &char->integer (1))', '!E312'],
  ],
  'vector-map': [
    ['(vector-map &double #(1 2))', '#(2 4)'],
    ['(vector-map &double #())', '#()'],
    ['(vector-map &double (1))', '!E312'],
  ],
  'vector-for-each': [
    ['(vector-for-each &double #(1 2))', 'values()'],
    ['(vector-for-each &car #(a))', '!E310'],
    ['(vector-for-each &car (a))', '!E312'],
  ],

  // ---------------------------------------------------------------- char
  'char->integer': [
    ['(char->integer #\\A)', '65'],
    ['(char->integer #\\x1F600)', '128512'],
    ['(char->integer "A")', '!E312'],
  ],
  'integer->char': [
    ['(integer->char 955)', '#\\λ'],
    ['(integer->char 32)', '#\\space'],
    ['(integer->char 55296)', '!E312'],
    ['(integer->char 1114112)', '!E312'],
    ['(integer->char -1)', '!E312'],
    ['(integer->char #\\a)', '!E312'],
  ],
  'char-alphabetic?': [
    ['(char-alphabetic? #\\a)', '#t'],
    ['(char-alphabetic? #\\λ)', '#t'],
    ['(char-alphabetic? #\\1)', '#f'],
    ['(char-alphabetic? 1)', '!E312'],
  ],
  'char-numeric?': [
    ['(char-numeric? #\\7)', '#t'],
    ['(char-numeric? #\\x0663)', '#t'],
    ['(char-numeric? #\\a)', '#f'],
    ['(char-numeric? "7")', '!E312'],
  ],
  'char-whitespace?': [
    ['(char-whitespace? #\\space)', '#t'],
    ['(char-whitespace? #\\tab)', '#t'],
    ['(char-whitespace? #\\x3000)', '#t'],
    ['(char-whitespace? #\\a)', '#f'],
    ['(char-whitespace? 32)', '!E312'],
  ],
  'char-upper-case?': [
    ['(char-upper-case? #\\A)', '#t'],
    ['(char-upper-case? #\\Λ)', '#t'],
    ['(char-upper-case? #\\a)', '#f'],
    ['(char-upper-case? a)', '!E312'],
  ],
  'char-lower-case?': [
    ['(char-lower-case? #\\a)', '#t'],
    ['(char-lower-case? #\\A)', '#f'],
    ['(char-lower-case? #\\1)', '#f'],
    ['(char-lower-case? a)', '!E312'],
  ],
  'char-upcase': [
    ['(char-upcase #\\a)', '#\\A'],
    ['(char-upcase #\\λ)', '#\\Λ'],
    ['(char-upcase #\\ß)', '#\\ß'],
    ['(char-upcase #\\1)', '#\\1'],
    ['(char-upcase "a")', '!E312'],
  ],
  'char-downcase': [
    ['(char-downcase #\\A)', '#\\a'],
    ['(char-downcase #\\Λ)', '#\\λ'],
    ['(char-downcase 65)', '!E312'],
  ],
  'char-foldcase': [
    ['(char-foldcase #\\A)', '#\\a'],
    ['(char-foldcase #\\Σ)', '#\\σ'],
    ['(char-foldcase #\\ς)', '#\\σ'],
    ['(char-foldcase #\\xAB70)', '#\\Ꭰ'],
    ['(char-foldcase #\\x13A0)', '#\\Ꭰ'],
    ['(char-foldcase #\\x1E9E)', '#\\ß'],
    ['(char-foldcase a)', '!E312'],
  ],
  'char=?': [
    ['(char=? #\\a #\\a #\\a)', '#t'],
    ['(char=? #\\a #\\b)', '#f'],
    ['(char=? #\\a "a")', '!E312'],
    ['(char=? #\\a)', '!E302'],
  ],
  'char<?': [
    ['(char<? #\\a #\\b #\\c)', '#t'],
    ['(char<? #\\b #\\a)', '#f'],
    ['(char<? #\\xFFFF #\\x1F600)', '#t'],
    ['(char<? #\\a 1)', '!E312'],
  ],
  'char<=?': [
    ['(char<=? #\\a #\\a #\\b)', '#t'],
    ['(char<=? #\\b #\\a)', '#f'],
    ['(char<=? 1 #\\a)', '!E312'],
  ],
  'char>?': [
    ['(char>? #\\c #\\b #\\a)', '#t'],
    ['(char>? #\\a #\\b)', '#f'],
    ['(char>? #\\a a)', '!E312'],
  ],
  'char>=?': [
    ['(char>=? #\\b #\\b #\\a)', '#t'],
    ['(char>=? #\\a #\\b)', '#f'],
    ['(char>=? #\\a "b")', '!E312'],
  ],
  'char-ci=?': [
    ['(char-ci=? #\\a #\\A)', '#t'],
    ['(char-ci=? #\\x13A0 #\\xAB70)', '#t'],
    ['(char-ci=? #\\a #\\b)', '#f'],
    ['(char-ci=? #\\a 1)', '!E312'],
  ],
  'char-ci<?': [
    ['(char-ci<? #\\a #\\B)', '#t'],
    ['(char-ci<? #\\B #\\a)', '#f'],
    ['(char-ci<? #\\a 1)', '!E312'],
  ],
  'char-ci<=?': [
    ['(char-ci<=? #\\a #\\A #\\b)', '#t'],
    ['(char-ci<=? #\\b #\\A)', '#f'],
    ['(char-ci<=? #\\a 1)', '!E312'],
  ],
  'char-ci>?': [
    ['(char-ci>? #\\B #\\a)', '#t'],
    ['(char-ci>? #\\a #\\B)', '#f'],
    ['(char-ci>? 1 #\\a)', '!E312'],
  ],
  'char-ci>=?': [
    ['(char-ci>=? #\\B #\\b #\\a)', '#t'],
    ['(char-ci>=? #\\a #\\B)', '#f'],
    ['(char-ci>=? #\\a 1)', '!E312'],
  ],

  // ---------------------------------------------------------------- string
  'string-length': [
    ['(string-length "")', '0'],
    ['(string-length "aλ😀")', '3'],
    ['(string-length a)', '!E312'],
  ],
  'string-ref': [
    ['(string-ref "aλ😀b" 2)', '#\\😀'],
    ['(string-ref "aλ😀b" 3)', '#\\b'],
    ['(string-ref "abc" 3)', '!E311'],
    ['(string-ref "abc" -1)', '!E311'],
    ['(string-ref "abc" 1.0)', '!E312'],
    ['(string-ref abc 0)', '!E312'],
  ],
  'make-string': [
    ['(make-string 3 #\\x)', '"xxx"'],
    ['(make-string 2)', '"  "'],
    ['(make-string 2 #\\x1F600)', '"😀😀"'],
    ['(make-string 0)', '""'],
    ['(make-string 2 "x")', '!E312'],
    ['(make-string -2)', '!E312'],
    ['(make-string 16777217)', '!E311'],
  ],
  'string-append': [
    ['(string-append)', '""'],
    ['(string-append "a" "λ" "😀")', '"aλ😀"'],
    ['(string-append "a" #\\b)', '!E312'],
  ],
  'string-copy': [
    ['(string-copy "hello")', '"hello"'],
    ['(string-copy "hello" 1)', '"ello"'],
    ['(string-copy "h😀llo" 1 3)', '"😀l"'],
    ['(string-copy "hello" 3 2)', '!E311'],
    ['(string-copy "hello" 0 6)', '!E311'],
    ['(string-copy 5)', '!E312'],
  ],
  substring: [
    ['(substring "hello" 1 3)', '"el"'],
    ['(substring "a😀b" 1 2)', '"😀"'],
    ['(substring "hello" 2 9)', '!E311'],
    ['(substring "hello" a 2)', '!E312'],
    ['(substring "hello" 1)', '!E302'],
  ],
  'string-upcase': [
    ['(string-upcase "aßλ")', '"ASSΛ"'],
    ['(string-upcase a)', '!E312'],
  ],
  'string-downcase': [
    ['(string-downcase "AΛ")', '"aλ"'],
    ['(string-downcase 1)', '!E312'],
  ],
  'string-foldcase': [
    ['(string-foldcase "Straße")', '"strasse"'],
    ['(string-foldcase "ABC")', '"abc"'],
    ['(string-foldcase "\\xAB70;Σ")', '"Ꭰσ"'],
    ['(string-foldcase #\\a)', '!E312'],
  ],
  'string=?': [
    ['(string=? "a" "a" "a")', '#t'],
    ['(string=? "a" "b")', '#f'],
    ['(string=? "a" a)', '!E312'],
    ['(string=? "a")', '!E302'],
  ],
  'string<?': [
    ['(string<? "a" "b" "c")', '#t'],
    ['(string<? "abc" "ab")', '#f'],
    ['(string<? "\\xFFFF;" "😀")', '#t'],
    ['(string<? "a" 1)', '!E312'],
  ],
  'string<=?': [
    ['(string<=? "a" "a" "b")', '#t'],
    ['(string<=? "b" "a")', '#f'],
    ['(string<=? 1 "a")', '!E312'],
  ],
  'string>?': [
    ['(string>? "b" "a")', '#t'],
    ['(string>? "a" "b")', '#f'],
    ['(string>? "a" #\\a)', '!E312'],
  ],
  'string>=?': [
    ['(string>=? "b" "b" "a")', '#t'],
    ['(string>=? "a" "b")', '#f'],
    ['(string>=? "a" a)', '!E312'],
  ],
  'string-ci=?': [
    ['(string-ci=? "Straße" "STRASSE")', '#t'],
    ['(string-ci=? "a" "b")', '#f'],
    ['(string-ci=? "a" 1)', '!E312'],
  ],
  'string-ci<?': [
    ['(string-ci<? "a" "B")', '#t'],
    ['(string-ci<? "B" "a")', '#f'],
    ['(string-ci<? "a" 1)', '!E312'],
  ],
  'string-ci<=?': [
    ['(string-ci<=? "a" "A")', '#t'],
    ['(string-ci<=? "b" "A")', '#f'],
    ['(string-ci<=? a "a")', '!E312'],
  ],
  'string-ci>?': [
    ['(string-ci>? "B" "a")', '#t'],
    ['(string-ci>? "a" "B")', '#f'],
    ['(string-ci>? "a" 1)', '!E312'],
  ],
  'string-ci>=?': [
    ['(string-ci>=? "A" "a")', '#t'],
    ['(string-ci>=? "a" "B")', '#f'],
    ['(string-ci>=? "a" 1)', '!E312'],
  ],

  // ---------------------------------------------------------------- io (stdout checked in io.test.ts)
  display: [
    ['(display "a")', 'values()'],
    ['(display)', '!E302'],
  ],
  write: [
    ['(write "a")', 'values()'],
    ['(write 1 2)', '!E302'],
  ],
  newline: [
    ['(newline)', 'values()'],
    ['(newline 1)', '!E302'],
  ],
  println: [
    ['(println x)', 'values()'],
    ['(println)', '!E302'],
  ],

  // ---------------------------------------------------------------- error-object, symbol
  'error-object-message': [
    ['(error-object-message &err)', '"bad thing"'],
    ['(error-object-message "x")', '!E312'],
  ],
  'error-object-irritants': [
    ['(error-object-irritants &err)', '(1 a)'],
    ['(error-object-irritants (1))', '!E312'],
  ],
  'string->symbol': [
    ['(string->symbol "abc")', 'abc'],
    ['(string->symbol "a b")', '|a b|'],
    ['(string->symbol "")', '||'],
    ['(string->symbol abc)', '!E312'],
  ],
  'symbol->string': [
    ['(symbol->string abc)', '"abc"'],
    ['(symbol->string "abc")', '!E312'],
  ],
};

/** Rows that accept any arguments of the right count and any arity, so no call can fail. */
export const NO_ERROR_CASE: ReadonlySet<string> = new Set(['list', 'vector']);
