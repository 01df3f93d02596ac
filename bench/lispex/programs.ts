// The benchmark programs, written in the portable subset shared by Lispex, Guile 3 and
// BiwaScheme (one-list map, named let, internal define, strings, assoc). Each evaluates to one
// checkable value.

export interface BenchProgram {
  readonly name: string;
  readonly source: string;
  /** `write` form of the expected result (checked on every engine). */
  readonly expected: string;
}

const FIB = '(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))';

/**
 * The programs of the Guile comparison of issue 34 (bench/lispex/speed.ts): two that are all
 * calls and small-integer arithmetic, and one that allocates — a merge sort of 20,000 generated
 * integers, three times, each result checked sorted and summed (cons cells, deep non-tail
 * recursion in `merge`). Each stays under the MCP profile's 100,000,000 machine transitions, so
 * `lispex run` runs it with its default limits.
 */
export const SPEED_PROGRAMS: readonly BenchProgram[] = [
  { name: 'fib(30)', source: `${FIB}\n(fib 30)`, expected: '832040' },
  {
    name: 'tak(22,16,8)',
    source: `(define (tak x y z) (if (not (< y x)) z (tak (tak (- x 1) y z) (tak (- y 1) z x) (tak (- z 1) x y))))
(tak 22 16 8)`,
    expected: '9',
  },
  {
    name: 'msort(20000)x3',
    source: `(define (make-data n) (let loop ((i 0) (x 1) (acc '())) (if (= i n) acc (loop (+ i 1) (modulo (+ (* x 75) 74) 65537) (cons x acc)))))
(define (merge a b) (cond ((null? a) b) ((null? b) a) ((< (car b) (car a)) (cons (car b) (merge a (cdr b)))) (else (cons (car a) (merge (cdr a) b)))))
(define (drop l k) (if (= k 0) l (drop (cdr l) (- k 1))))
(define (msort l n) (if (< n 2) (if (= n 0) '() (list (car l))) (let ((h (quotient n 2))) (merge (msort l h) (msort (drop l h) (- n h))))))
(define (checksum l) (let loop ((l l) (i 1) (acc 0)) (if (null? l) acc (loop (cdr l) (+ i 1) (modulo (+ acc (* i (car l))) 1000003)))))
(define (sorted? l) (or (null? l) (null? (cdr l)) (and (<= (car l) (cadr l)) (sorted? (cdr l)))))
(define (bench k acc) (if (= k 0) acc (let ((s (msort (make-data 20000) 20000))) (bench (- k 1) (+ acc (if (sorted? s) (checksum s) -1))))))
(bench 3 0)`,
    expected: '438876',
  },
];

export const PROGRAMS: readonly BenchProgram[] = [
  { name: 'fib(25)', source: `${FIB}\n(fib 25)`, expected: '75025' },
  { name: 'fib(30)', source: `${FIB}\n(fib 30)`, expected: '832040' },
  {
    name: 'tak(18,12,6)',
    source: `(define (tak x y z) (if (not (< y x)) z (tak (tak (- x 1) y z) (tak (- y 1) z x) (tak (- z 1) x y))))
(tak 18 12 6)`,
    expected: '7',
  },
  {
    name: 'nqueens(8)',
    source: `(define (queens board-size)
  (define (ok? row dist placed)
    (or (null? placed)
        (and (not (= (car placed) (+ row dist)))
             (not (= (car placed) (- row dist)))
             (not (= (car placed) row))
             (ok? row (+ dist 1) (cdr placed)))))
  (define (try-it x y z)
    (if (null? x)
        (if (null? y) 1 0)
        (+ (if (ok? (car x) 1 z) (try-it (append (cdr x) y) '() (cons (car x) z)) 0)
           (try-it (cdr x) (cons (car x) y) z))))
  (define (iota1 n) (let loop ((i n) (l '())) (if (= i 0) l (loop (- i 1) (cons i l)))))
  (try-it (iota1 board-size) '() '()))
(define (repeat n) (if (= n 1) (queens 8) (begin (queens 8) (repeat (- n 1)))))
(repeat 10)`,
    expected: '92',
  },
  {
    name: 'strings+lists',
    source: `(define (iota n) (let loop ((i (- n 1)) (acc '())) (if (< i 0) acc (loop (- i 1) (cons i acc)))))
(define (sum-list l) (let loop ((l l) (acc 0)) (if (null? l) acc (loop (cdr l) (+ acc (car l))))))
(define (work n)
  (let* ((nums (iota n))
         (strs (map number->string nums))
         (joined (map (lambda (s) (string-append s "," s)) strs))
         (lens (map (lambda (s) (length (string->list s))) (reverse joined)))
         (table (map (lambda (s) (cons s (string->symbol s))) strs))
         (hit (assoc "1500" table)))
    (+ (sum-list lens) (string-length (symbol->string (cdr hit))))))
(let loop ((i 0) (acc 0)) (if (= i 20) acc (loop (+ i 1) (+ acc (work 2000)))))`,
    expected: '315680',
  },
];

/** Limits high enough for every program (the MCP profile's, with more machine transitions). */
export const BENCH_LIMITS = {
  'frontend-transition-limit': 20_000_000,
  'token-limit': 2_000_000,
  'normalization-step-limit': 20_000_000,
  'machine-transition-limit': 1_000_000_000,
  'output-byte-limit': 1_048_576,
};
