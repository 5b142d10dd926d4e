//! The properties checked by proxima's fuzz targets, one module per target.
//!
//! The same modules are compiled into the bounded proptest suites
//! (`crates/*/tests/fuzz_properties.rs` include them with `#[path]`), so
//! `cargo test --workspace --release` checks the same properties on a fixed,
//! seeded sample of inputs without a nightly toolchain.

pub mod broadphase;
pub mod bytes;
pub mod narrowphase;
pub mod oracle;
pub mod scene;
