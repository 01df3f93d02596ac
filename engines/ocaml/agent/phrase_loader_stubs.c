/* The runtime side of topup-opt's in-memory phrase loader (phrase_loader.ml): executable memory,
   symbol lookup in the running process, and the registrations the runtime's own natdynlink
   (runtime/dynlink_nat.c, caml_natdynlink_run) does for a dlopen'd unit — frametable, GC roots,
   static data, code fragment — before calling the unit's entry point the same way. */
#define CAML_INTERNALS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <sys/mman.h>
#include <caml/mlvalues.h>
#include <caml/alloc.h>
#include <caml/memory.h>
#include <caml/fail.h>
#include <caml/callback.h>
#include <caml/address_class.h>
#include <caml/codefrag.h>
#include <caml/stack.h>

extern void caml_register_dyn_global(void *v);

/* Memory for one unit's image (code, data, GOT, call stubs), readable, writable and executable:
   the unit's data is written by its own initialisation code and by later phrases. */
CAMLprim value topup_loader_map(value size)
{
  void *p = mmap(NULL, Long_val(size), PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) caml_failwith("mmap of executable memory failed");
  return caml_copy_nativeint((intnat) p);
}

CAMLprim value topup_loader_unmap(value addr, value size)
{
  munmap((void *) Nativeint_val(addr), Long_val(size));
  return Val_unit;
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
  if (cb && ce) caml_register_code_fragment(cb, ce, DIGEST_LATER, NULL);
  return Val_unit;
}

/* Run a unit's entry point as caml_natdynlink_run does: a closure whose code pointer is it.
   Exceptions (including Sys.Break from an interrupt) propagate to the OCaml caller. */
CAMLprim value topup_loader_run(value entry)
{
  void *entrypoint = (void *) Nativeint_val(entry);
  return caml_callback((value) (&entrypoint), 0);
}
