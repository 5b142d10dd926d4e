//! Lane-mask kernels for the box traversals (overlap queries, the self-pair
//! descents): the lanes of a node whose boxes overlap a closed box. The
//! traversals are written once, generic over the kernel, and instantiated
//! twice: with the portable kernel (SSE2 on x86_64) and, in a function
//! compiled for AVX, with [`overlap_mask_x8_avx`] (one 256-bit comparison
//! per bound), chosen at run time by the tree's [`SimdLevel`]. Both give the
//! same masks.
//!
//! [`overlap_mask_x8_avx`]: proxima_narrowphase::kernels::overlap_mask_x8_avx
//! [`SimdLevel`]: proxima_narrowphase::kernels::SimdLevel

use proxima_narrowphase::kernels::AabbX8;
use proxima_narrowphase::Real;

/// A lane-mask kernel: the lanes of a node overlapping the closed box
/// `[min, max]` ([`AabbX8::overlap_mask_bounds`] or its AVX form).
pub(crate) trait MaskKernel: Fn(&AabbX8, &[Real; 3], &[Real; 3]) -> u32 {}
impl<K: Fn(&AabbX8, &[Real; 3], &[Real; 3]) -> u32> MaskKernel for K {}

/// The portable kernel (SSE2 on x86_64).
#[inline(always)]
pub(crate) fn portable_mask(lanes: &AabbX8, min: &[Real; 3], max: &[Real; 3]) -> u32 {
    lanes.overlap_mask_bounds(min, max)
}

/// The lanes of `lanes` overlapping lane `i` of `other`.
#[inline(always)]
pub(crate) fn lane_mask<K: MaskKernel>(kernel: &K, lanes: &AabbX8, other: &AabbX8, i: usize) -> u32 {
    let rows = other.rows();
    kernel(lanes, &[rows[0][0][i], rows[1][0][i], rows[2][0][i]], &[rows[0][1][i], rows[1][1][i], rows[2][1][i]])
}
