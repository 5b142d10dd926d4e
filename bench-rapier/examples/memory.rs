//! Memory per collider of each collision-step contender on a recorded rapier
//! scene: the heap bytes a contender holds after replaying every step (its
//! scene or broad phase, pair search, pipeline, manifolds and buffers, plus
//! the bench's own handle list), over the number of colliders, and the
//! largest amount it held at any point of the replay.
//! `cargo run --release --example memory -- [tall|wide] [seed=N] [bodies=N] [capsules=F] [floor=box|mesh]`
//! (any of the `step` example's scene arguments).

use proxima_bench_rapier::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes live and the most ever live.
struct LiveBytes {
    live: AtomicUsize,
    peak: AtomicUsize,
}

impl LiveBytes {
    fn grew(&self, bytes: usize) {
        let live = self.live.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(live, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for LiveBytes {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
        self.grew(new_size);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static HEAP: LiveBytes = LiveBytes { live: AtomicUsize::new(0), peak: AtomicUsize::new(0) };

fn main() {
    let (scene, _) = scene_args();
    let recording = record(&scene);
    let colliders = recording.colliders();
    println!("{colliders} colliders x {} steps", recording.frames.len());
    println!("\n{:<18} {:>12} {:>12} {:>14}", "contender", "bytes/coll.", "peak/coll.", "total (MiB)");
    // One contender at a time, built, replayed and dropped: the other
    // contenders' memory is not in its figure.
    for index in 0..all_steps().len() {
        let before = HEAP.live.load(Ordering::Relaxed);
        HEAP.peak.store(before, Ordering::Relaxed);
        let mut contender = all_steps().swap_remove(index);
        contender.start(&recording);
        for frame in &recording.frames[1..] {
            contender.step(frame);
        }
        let held = HEAP.live.load(Ordering::Relaxed).saturating_sub(before);
        let peak = HEAP.peak.load(Ordering::Relaxed).saturating_sub(before);
        println!(
            "{:<18} {:>12.0} {:>12.0} {:>14.2}",
            contender.name(),
            held as f64 / colliders as f64,
            peak as f64 / colliders as f64,
            held as f64 / (1024.0 * 1024.0)
        );
    }
}
