//! A global allocator that counts, for the tests that check a steady state
//! allocates nothing.
//!
//! A test file installs it once and reads the count around the code under
//! test:
//!
//! ```ignore
//! use proxima_test_support::alloc::CountingAllocator;
//!
//! #[global_allocator]
//! static ALLOCATOR: CountingAllocator = CountingAllocator::new();
//!
//! let before = ALLOCATOR.count();
//! // ... the code that must not allocate ...
//! assert_eq!(ALLOCATOR.count() - before, 0);
//! ```
//!
//! The count covers every thread of the process (rayon's workers included),
//! so a file that uses it holds a single test: the harness then runs nothing
//! else meanwhile (its main thread only waits).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting allocations and reallocations (frees are
/// not counted).
#[derive(Debug, Default)]
pub struct CountingAllocator {
    count: AtomicUsize,
}

impl CountingAllocator {
    /// A counter at zero, for a `static`.
    #[must_use]
    pub const fn new() -> Self {
        Self { count: AtomicUsize::new(0) }
    }

    /// Allocations and reallocations so far, by every thread.
    #[must_use]
    pub fn count(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    /// Sets the count back to zero.
    pub fn reset(&self) {
        self.count.store(0, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.count.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.count.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
