//! The clock of [`FrameStats`](super::FrameStats): read only with the
//! `timing` feature.

use std::time::Duration;

/// A point in time for [`FrameStats`]: an `Instant` with the `timing`
/// feature.
#[cfg(feature = "timing")]
#[derive(Clone, Copy)]
pub(super) struct Stamp(std::time::Instant);

#[cfg(feature = "timing")]
impl Stamp {
    #[inline]
    pub(super) fn now() -> Self {
        Self(std::time::Instant::now())
    }

    /// The time from `earlier` to `self`.
    #[inline]
    pub(super) fn since(self, earlier: Self) -> Duration {
        self.0 - earlier.0
    }
}

/// Without the `timing` feature no clock is read (`Instant::now` panics on
/// `wasm32-unknown-unknown`) and every duration is zero.
#[cfg(not(feature = "timing"))]
#[derive(Clone, Copy)]
pub(super) struct Stamp;

#[cfg(not(feature = "timing"))]
impl Stamp {
    #[inline]
    pub(super) fn now() -> Self {
        Self
    }

    #[inline]
    pub(super) fn since(self, _earlier: Self) -> Duration {
        Duration::ZERO
    }
}
