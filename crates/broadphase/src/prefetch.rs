//! A software prefetch of one table entry: the traversals and the merge ask
//! for the lines they will read a few steps ahead, so that independent cache
//! misses overlap instead of forming one dependent chain.

/// Asks the CPU to start loading the (first) cache line of `table[index]`;
/// nothing when the index is out of range or off x86_64. A hint only: no
/// effect on any value, for a caller that knows which entry it will read a
/// little later (the scene's ray casts load their best hit's box and handle
/// this way while the traversal goes on).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_broadphase as broadphase; }
/// let table = vec![0u64; 1 << 16];
/// proxima::broadphase::internal::prefetch(&table, 4_000);
/// proxima::broadphase::internal::prefetch(&table, u32::MAX); // out of range: nothing
/// assert_eq!(table[4_000], 0);
/// ```
#[inline(always)]
pub fn prefetch<R>(table: &[R], index: u32) {
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

/// [`prefetch`] of every cache line `table[index]` spans (an element larger
/// than a line, whose fields the caller reads all over).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_broadphase as broadphase; }
/// let table = vec![[0u64; 40]; 1 << 12];
/// proxima::broadphase::internal::prefetch_lines(&table, 4_000);
/// proxima::broadphase::internal::prefetch_lines(&table, 5_000); // out of range: nothing
/// assert_eq!(table[4_000][39], 0);
/// ```
#[inline(always)]
pub fn prefetch_lines<R>(table: &[R], index: u32) {
    #[cfg(target_arch = "x86_64")]
    if let Some(entry) = table.get(index as usize) {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = (entry as *const R).cast::<i8>();
        let size = core::mem::size_of::<R>();
        let mut offset = 0;
        while offset < size {
            // SAFETY: a prefetch is a hint without memory effects; the
            // address lies inside the live element `table[index]`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.add(offset)) };
            offset += 64;
        }
        // An element that starts inside a line ends one line further than
        // its size in lines: its last byte's line too.
        if size > 0 {
            // SAFETY: as above, `size - 1` is the element's last byte.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.add(size - 1)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (table, index);
}
