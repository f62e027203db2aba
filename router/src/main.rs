//! The gsmcp router binary.
fn main() {}
