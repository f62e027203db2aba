//! Helpers for the end-to-end tests: start the real binaries on free ports.
