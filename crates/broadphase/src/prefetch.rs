//! A software prefetch of one table entry: the traversals and the merge ask
//! for the lines they will read a few steps ahead, so that independent cache
//! misses overlap instead of forming one dependent chain.

/// Asks the CPU to start loading the (first) cache line of `table[index]`;
/// nothing when the index is out of range or off x86_64.
#[inline(always)]
pub(crate) fn prefetch<R>(table: &[R], index: u32) {
    #[cfg(target_arch = "x86_64")]
    if let Some(entry) = table.get(index as usize) {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint without memory effects, of a line
        // inside a live element of `table`.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((entry as *const R).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (table, index);
}
