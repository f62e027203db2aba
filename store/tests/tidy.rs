//! The store's public handles have the thread-safety the layers above rely on.
//! (The house rules on sources, module docs among them, are checked over the
//! whole workspace by `tests/tests/tidy.rs`.)

#[test]
fn handles_cross_threads_as_documented() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<gsmcp_store::Repository>();
    send_sync::<gsmcp_store::ViewWatch>();
    send_sync::<gsmcp_store::StoreError>();
    send::<gsmcp_store::StoreSession>();
}
