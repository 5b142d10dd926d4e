//! The widest SIMD kernel level the running CPU supports, detected once.

use core::sync::atomic::{AtomicU8, Ordering};

/// The widest kernel the running CPU supports, detected once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum SimdLevel {
    /// Portable code, one lane at a time.
    Scalar,
    /// 4 lanes per instruction (x86_64 baseline).
    Sse2,
    /// 8 lanes per instruction (x86_64 with AVX).
    Avx,
}

/// 0: not detected yet; otherwise `1 + SimdLevel as u8`.
static DETECTED: AtomicU8 = AtomicU8::new(0);

impl SimdLevel {
    /// The best level of this CPU. The CPUID check runs on the first call;
    /// later calls read a cached atomic.
    #[inline]
    pub fn detect() -> Self {
        match DETECTED.load(Ordering::Relaxed) {
            1 => SimdLevel::Scalar,
            2 => SimdLevel::Sse2,
            3 => SimdLevel::Avx,
            _ => {
                let level = Self::detect_uncached();
                DETECTED.store(level as u8 + 1, Ordering::Relaxed);
                level
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn detect_uncached() -> Self {
        if std::is_x86_feature_detected!("avx") {
            SimdLevel::Avx
        } else {
            SimdLevel::Sse2
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn detect_uncached() -> Self {
        SimdLevel::Scalar
    }

    /// True when this CPU can run kernels of this level.
    #[inline]
    pub fn is_available(self) -> bool {
        self <= Self::detect()
    }
}
