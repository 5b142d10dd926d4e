//! serde helpers (the `serde` feature).

/// `value` written to JSON with serde_json and read back.
///
/// # Panics
/// If either direction fails.
#[must_use]
pub fn round_trip<T: ::serde::Serialize + ::serde::de::DeserializeOwned>(value: &T) -> T {
    let json = serde_json::to_string(value).expect("serialize");
    serde_json::from_str(&json).expect("deserialize")
}
