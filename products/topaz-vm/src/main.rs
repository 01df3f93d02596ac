//! topaz-vm: an independent Lispex bytecode machine behind lispex.external-backend-protocol/v1.
//! See docs/lispex/EXTERNAL-PRODUCTS.md.

fn main() {
    topaz_vm::protocol::product_main("topaz-vm", &[]);
}
