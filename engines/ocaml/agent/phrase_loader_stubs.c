/* The runtime side of topup-opt's in-memory phrase loader (phrase_loader.ml): executable memory,
   symbol lookup in the running process, and the registrations the runtime's own natdynlink
   (runtime/dynlink_nat.c, caml_natdynlink_run) does for a dlopen'd unit — frametable, GC roots,
   static data, code fragment — before calling the unit's entry point the same way.

   It also makes phrase code interruptible without poll points (see [on_signal]). */
#define CAML_INTERNALS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <caml/mlvalues.h>
#include <caml/alloc.h>
#include <caml/memory.h>
#include <caml/fail.h>
#include <caml/callback.h>
#include <caml/address_class.h>
#include <caml/codefrag.h>
#include <caml/stack.h>

extern void caml_register_dyn_global(void *v);
CAMLprim value topup_loader_add_code_range(value start, value end);

/* Memory for one unit's image (code, data, GOT, call stubs), readable, writable and executable:
   the unit's data is written by its own initialisation code and by later phrases. */
CAMLprim value topup_loader_map(value size)
{
  void *p = mmap(NULL, Long_val(size), PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) caml_failwith("mmap of executable memory failed");
  return caml_copy_nativeint((intnat) p);
}

CAMLprim value topup_loader_write(value addr, value image)
{
  memcpy((void *) Nativeint_val(addr), Bytes_val(image), caml_string_length(image));
  return Val_unit;
}

/* Address of a symbol of the agent or of a library dlopen'd with RTLD_GLOBAL; 0 if none. */
CAMLprim value topup_loader_dlsym(value name)
{
  return caml_copy_nativeint((intnat) dlsym(RTLD_DEFAULT, String_val(name)));
}

/* The OCaml value whose address is [addr] (a unit's global block, a closure). */
CAMLprim value topup_loader_value_at(value addr)
{
  return (value) Nativeint_val(addr);
}

CAMLprim value topup_loader_register(value frametable, value gc_roots, value data_begin, value data_end,
                                     value code_begin, value code_end)
{
  void *ft = (void *) Nativeint_val(frametable), *roots = (void *) Nativeint_val(gc_roots);
  char *db = (char *) Nativeint_val(data_begin), *de = (char *) Nativeint_val(data_end);
  char *cb = (char *) Nativeint_val(code_begin), *ce = (char *) Nativeint_val(code_end);
  if (ft) caml_register_frametable(ft);
  if (roots) caml_register_dyn_global(roots);
  if (db && de) caml_page_table_add(In_static_data, db, de);
  if (cb && ce) {
    caml_register_code_fragment(cb, ce, DIGEST_LATER, NULL);
    topup_loader_add_code_range(code_begin, code_end);
  }
  return Val_unit;
}

/* ---------- interrupts without poll points ----------

   Native code acts on a signal only at an allocation or a poll point, so a phrase like naive
   fib, which neither allocates nor loops, would be deaf to interrupts. Instead of adding polls
   to the phrase's code, the agent stops such code where it is: while user code runs (between
   [topup_loader_arm] and [topup_loader_disarm]), SIGINT and SIGALRM come here first, and when
   the interrupted instruction is in the code of a phrase (the [code_begin, code_end) range of
   a unit compiled by this agent — OCaml code, never the runtime, C or a stub), the handler makes
   the thread resume in caml_raise_exn with Sys.Break, as if the phrase had raised it there.
   That is sound at any instruction of OCaml code: the exception handler chain lives in
   Caml_state->exception_pointer and is consistent at every instruction boundary (pushtrap and
   poptrap update it in one store), r14/r15 (domain state, young pointer) stay valid, raising
   discards the interrupted frame so no frame descriptor is needed for its pc, and an
   allocation abandoned between its pointer bump and its header write leaves only an unreachable
   gap in the minor heap, which nothing walks. The interrupted pc is pushed as the raise's
   return address, which is all caml_raise_exn needs if backtraces are on (the lookup of a pc
   with no frame descriptor ends the backtrace). Anywhere else (C, the runtime, a library's
   code), the signal goes to the handler that was installed (the runtime's, which records it for
   the next poll point), as before. */

extern void caml_raise_exn(void);

struct code_range { uintnat start, end; };
static struct code_range *ranges = NULL;
static int n_ranges = 0, cap_ranges = 0;
static value break_exn = Val_unit;
static volatile sig_atomic_t armed = 0;
static struct sigaction saved_int, saved_alrm;

CAMLprim value topup_loader_add_code_range(value start, value end)
{
  if (n_ranges == cap_ranges) {
    int cap = cap_ranges ? 2 * cap_ranges : 64;
    struct code_range *r = realloc(ranges, cap * sizeof *r);
    if (r == NULL) caml_failwith("out of memory for code ranges");
    ranges = r;
    cap_ranges = cap;
  }
  ranges[n_ranges].start = (uintnat) Nativeint_val(start);
  ranges[n_ranges].end = (uintnat) Nativeint_val(end);
  n_ranges++;
  return Val_unit;
}

static int in_phrase_code(uintnat pc)
{
  for (int i = n_ranges - 1; i >= 0; i--)
    if (pc >= ranges[i].start && pc < ranges[i].end) return 1;
  return 0;
}

static void forward(const struct sigaction *old, int sig, siginfo_t *info, void *ctx)
{
  if (old->sa_flags & SA_SIGINFO) {
    if (old->sa_sigaction) old->sa_sigaction(sig, info, ctx);
  } else if (old->sa_handler != SIG_IGN && old->sa_handler != SIG_DFL) {
    old->sa_handler(sig);
  }
}

static void on_signal(int sig, siginfo_t *info, void *vctx)
{
  ucontext_t *uc = (ucontext_t *) vctx;
  greg_t pc = uc->uc_mcontext.gregs[REG_RIP];
  if (armed && break_exn != Val_unit && in_phrase_code((uintnat) pc)) {
    greg_t sp = uc->uc_mcontext.gregs[REG_RSP] - 8;
    *(greg_t *) sp = pc;
    uc->uc_mcontext.gregs[REG_RSP] = sp;
    uc->uc_mcontext.gregs[REG_RAX] = (greg_t) break_exn;
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t) &caml_raise_exn;
    return;
  }
  forward(sig == SIGINT ? &saved_int : &saved_alrm, sig, info, vctx);
}

CAMLprim value topup_loader_set_break(value exn)
{
  if (break_exn == Val_unit) {
    break_exn = exn;
    caml_register_generational_global_root(&break_exn);
  }
  return Val_unit;
}

CAMLprim value topup_loader_arm(value unit)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &saved_int);
  sigaction(SIGALRM, &sa, &saved_alrm);
  armed = 1;
  return Val_unit;
}

/* Puts back the handlers [topup_loader_arm] found, unless user code replaced ours meanwhile: the
   saved one goes back and the one it replaces comes back with it (one system call a signal, as a
   phrase is armed and disarmed every time its code runs); in the rare case that was not ours, the
   user's handler is put back in its place. */
static void restore(int sig, const struct sigaction *saved)
{
  struct sigaction cur;
  if (sigaction(sig, saved, &cur) == 0 && !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal))
    sigaction(sig, &cur, NULL);
}

CAMLprim value topup_loader_disarm(value unit)
{
  armed = 0;
  restore(SIGINT, &saved_int);
  restore(SIGALRM, &saved_alrm);
  return Val_unit;
}

/* Run a unit's entry point as caml_natdynlink_run does: a closure whose code pointer is it.
   Exceptions (including Sys.Break from an interrupt) propagate to the OCaml caller. */
CAMLprim value topup_loader_run(value entry)
{
  void *entrypoint = (void *) Nativeint_val(entry);
  return caml_callback((value) (&entrypoint), 0);
}
