//! The gsmcp worker binary.
fn main() {}
