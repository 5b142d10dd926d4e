//! Every overlapping pair of a set of boxes, found from scratch by a uniform
//! grid: for worlds of bodies of similar size that all move (a physics pile),
//! where finding every pair again costs less than keeping them.
//!
//! - this file: the grid's shape (cell size, large boxes) and the binning;
//! - `scan`: the pair search over the binned boxes, 8 candidates at a time.
//!
//! **The neighbour rule.** Each box is binned by the cell of its minimum
//! corner, with cells larger than every binned box. Two boxes that overlap
//! have minimum corners less than one cell apart on each axis
//! (`a.min <= b.max <= b.min + extent`), so their cells differ by at most
//! one per axis. Cells are numbered `x + nx * (y + ny * z)`; a box looks
//! only at the cells numbered after its own among those 27 (its own cell from
//! the next box on, and `x + 1`; the three of `y + 1`; the nine of `z + 1`):
//! five runs of consecutive cells, each a contiguous run of the boxes sorted
//! by cell. Every pair is found exactly once, from its box that comes first
//! in that order.
//!
//! **Large boxes.** A few boxes much larger than the rest (a floor, a wall)
//! would make every cell huge: boxes larger than eight times the median
//! extent, the [`MAX_LARGE`] largest at most, are kept out of the grid and
//! tested against every box, eight at a time.

mod scan;

use crate::pairs::IndexPair;
use proxima_narrowphase::kernels::SimdLevel;
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Real};

/// Largest number of boxes kept out of the grid and tested against every box.
pub const MAX_LARGE: usize = 64;
/// A box larger than this many times the median extent is kept out of the
/// grid (the [`MAX_LARGE`] largest of them at most).
const LARGE_FACTOR: f64 = 8.0;
/// The grid has at most this many cells per binned box (plus a constant): in
/// a sparse world the cells grow instead, so the cell table and its prefix
/// sum stay proportional to the boxes.
const CELLS_PER_BOX: usize = 4;
/// The cell's side is the largest binned extent times this: the margin
/// absorbs the rounding of the cell coordinates, computed in `f64` (see
/// [`GridPairs::bin`]).
const CELL_MARGIN: f64 = 1.0 + 1.0 / 1024.0;
/// The median extent is taken over at most this many boxes (evenly spaced).
const MEDIAN_SAMPLE: usize = 1024;
/// The parallel search's pieces: fixed, so that the work split (and the
/// order of the pairs) does not depend on the number of threads.
#[cfg(feature = "parallel")]
const PAR_PIECES: usize = 16;
/// Below this many binned boxes the parallel search runs on one thread.
#[cfg(feature = "parallel")]
const PAR_MIN_BOXES: usize = 2_048;

/// The exact pairs of overlapping boxes of a set, found from scratch by a
/// uniform grid over the boxes' minimum corners (a counting sort by cell,
/// then eight candidate boxes per test).
///
/// Each call bins every box again: its cost follows the number of boxes and
/// of candidates, not what moved. Besides its buffers, the one state kept
/// from a call to the next is a choice of speed, never of answer: when a
/// call found pairs in few of its tests (boxes falling apart), the next one
/// skips the stores of tests that find none. It wins over the tree
/// traversals when the boxes are of similar size and most of them move (a
/// physics pile: the rapier tall drop, see `BENCHMARKS.md`); for a world
/// mostly at rest use
/// [`PairTracker`](crate::PairTracker), whose cost follows what moved.
/// Boxes much larger than the rest (up to 64 of them) are tested against
/// every box. The pairs are exact whatever the boxes; what degrades is the
/// speed, when many boxes are far larger than the median (the cells are as
/// large as the largest binned box) or a few sit far from a dense cluster
/// (the cells grow so that their number stays proportional to the boxes).
///
/// Overlap is inclusive (touching boxes overlap), as everywhere in proxima.
/// The buffers are kept between calls: a call over the same boxes, or the
/// same boxes moved a little, allocates nothing. They hold 43-50 bytes per
/// box (100k boxes, dense and sparse: [`memory_bytes`](Self::memory_bytes)).
/// The pairs go to the caller's list.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
/// use proxima::broadphase::GridPairs;
/// use proxima::narrowphase::{Aabb, Point};
/// let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
/// let boxes = [unit(0.0), unit(0.5), unit(3.0), unit(4.0)];
/// let mut grid = GridPairs::new();
/// let mut pairs = Vec::new();
/// grid.pairs_into(&boxes, &mut pairs);
/// assert_eq!(pairs, [(0, 1), (2, 3)]); // 2 and 3 touch
/// ```
#[derive(Clone, Debug)]
pub struct GridPairs {
    /// Per cell, and for the padding cells after the last (so that every
    /// neighbour run is in bounds): the position of its first box.
    first: Vec<u32>,
    /// The binned boxes' indices by position (sorted by cell), padded with
    /// `LANES` more entries (read by the tests' writes, never kept).
    ids: Vec<u32>,
    /// Their cells by position.
    cells: Vec<u32>,
    /// Their bounds by position, one run per bound (min x, y, z, max x, y,
    /// z), each padded with `LANES` NaNs that no test passes.
    bounds: Vec<Real>,
    /// The boxes kept out of the grid.
    large: Vec<u32>,
    /// Scratch: each box's extent (`f64` bits), then each box's cell.
    scratch: Vec<u64>,
    shape: GridShape,
    /// Kernel level: at most what this CPU has (lowered when set). The
    /// search checks the CPU again before it runs AVX code.
    simd: SimdLevel,
    /// Whether the AVX kernel packs its kept pairs with AVX2 when the CPU
    /// has it (off only to test the path without).
    pack: bool,
    /// Whether the next search skips the stores of tests that find no
    /// pair: set when the last one found fewer pairs than
    /// [`SKIP_EMPTY_BELOW`] of its tests (see [`skips_next`]).
    skip_empty: bool,
    /// The parallel search's pieces' pairs.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pieces: Vec<Vec<(u32, u32)>>,
}

/// The grid of the last call of [`GridPairs`] (for tests and tuning).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GridShape {
    /// The cell's side.
    pub cell_size: f64,
    /// Cells per axis.
    pub dims: [usize; 3],
    /// Boxes kept out of the grid (tested against every box).
    pub large: usize,
}

impl Default for GridPairs {
    fn default() -> Self {
        Self::new()
    }
}

impl GridPairs {
    /// An empty grid (no buffers yet), searching with the best kernels of
    /// this CPU.
    pub fn new() -> Self {
        Self {
            first: Vec::new(),
            ids: Vec::new(),
            cells: Vec::new(),
            bounds: Vec::new(),
            large: Vec::new(),
            scratch: Vec::new(),
            shape: GridShape::default(),
            simd: SimdLevel::detect(),
            pack: true,
            skip_empty: false,
            pieces: Vec::new(),
        }
    }

    /// The same search with the kernels of `simd` at most (the portable one
    /// with [`SimdLevel::Scalar`]), lowered to what this CPU has: for tests
    /// that compare the kernels.
    #[doc(hidden)]
    pub fn with_simd(simd: SimdLevel) -> Self {
        Self { simd: simd.min(SimdLevel::detect()), ..Self::new() }
    }

    /// The kernel level the search uses: [`SimdLevel::detect`] for
    /// [`new`](Self::new), the requested one lowered to it for
    /// [`with_simd`](Self::with_simd).
    #[doc(hidden)]
    pub fn simd_level(&self) -> SimdLevel {
        self.simd
    }

    /// The AVX search without its AVX2 packing of the kept pairs (the path
    /// a CPU with AVX and without AVX2 takes): for tests.
    #[doc(hidden)]
    pub fn without_packing(self) -> Self {
        Self { pack: false, ..self }
    }

    /// The grid of the last call.
    #[doc(hidden)]
    pub fn shape(&self) -> GridShape {
        self.shape
    }

    /// Heap bytes held by the buffers.
    pub fn memory_bytes(&self) -> usize {
        let u32s = self.first.capacity() + self.ids.capacity() + self.cells.capacity() + self.large.capacity();
        let reals = self.bounds.capacity();
        let pieces: usize = self.pieces.iter().map(|p| p.capacity() * 8).sum();
        u32s * 4 + reals * core::mem::size_of::<Real>() + self.scratch.capacity() * 8 + pieces
    }

    /// Every pair `(i, j)`, `i < j`, of overlapping boxes (indices into
    /// `boxes`), into `out` (cleared first), sorted ascending.
    pub fn pairs_into(&mut self, boxes: &[Aabb], out: &mut Vec<IndexPair>) {
        self.pairs_unsorted_into(boxes, out);
        out.sort_unstable();
    }

    /// [`pairs_into`](Self::pairs_into) without the sort: each pair once, in
    /// an order that depends only on `boxes`.
    ///
    /// # Panics
    /// With `2^29` boxes or more (cell numbers are 32-bit).
    pub fn pairs_unsorted_into(&mut self, boxes: &[Aabb], out: &mut Vec<IndexPair>) {
        let simd = self.prepare(boxes, out);
        let tests = scan::grid_pairs(self, simd, self.skip_empty, 0..self.cells.len(), out);
        self.skip_empty = skips_next(out.len(), tests);
        scan::large_pairs(self, boxes, simd, out);
    }

    /// [`pairs_unsorted_into`](Self::pairs_unsorted_into) with the search
    /// spread over rayon's pool (the pool of the caller's
    /// [`ThreadPool::install`](rayon::ThreadPool::install) if there is one):
    /// the binned boxes are cut into a fixed number of pieces whose pairs
    /// are appended in order, so the pairs and their order are the
    /// sequential call's for any number of threads. The binning stays on the
    /// calling thread. Its buffers are kept, but rayon's scheduler may
    /// allocate now and then.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
    /// use proxima::broadphase::GridPairs;
    /// use proxima::narrowphase::{Aabb, Point};
    /// let boxes: Vec<Aabb> = (0..1_000)
    ///     .map(|i| Aabb::new(Point::new(i as f32 * 0.5, 0.0, 0.0), Point::new(i as f32 * 0.5 + 1.0, 1.0, 1.0)))
    ///     .collect();
    /// let (mut one, mut two) = (Vec::new(), Vec::new());
    /// GridPairs::new().pairs_unsorted_into(&boxes, &mut one);
    /// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// pool.install(|| GridPairs::new().pairs_unsorted_into_parallel(&boxes, &mut two));
    /// assert_eq!(one, two);
    /// ```
    #[cfg(feature = "parallel")]
    pub fn pairs_unsorted_into_parallel(&mut self, boxes: &[Aabb], out: &mut Vec<IndexPair>) {
        use rayon::prelude::*;
        let simd = self.prepare(boxes, out);
        let n = self.cells.len();
        let skip_empty = self.skip_empty;
        let tests = if n < PAR_MIN_BOXES {
            scan::grid_pairs(self, simd, skip_empty, 0..n, out)
        } else {
            let mut pieces = core::mem::take(&mut self.pieces);
            pieces.resize_with(PAR_PIECES, Vec::new);
            let grid = &*self;
            let tests = pieces
                .par_iter_mut()
                .enumerate()
                .map(|(p, piece)| {
                    piece.clear();
                    let at = |p: usize| (n as u64 * p as u64 / PAR_PIECES as u64) as usize;
                    scan::grid_pairs(grid, simd, skip_empty, at(p)..at(p + 1), piece)
                })
                .sum();
            for piece in &pieces {
                out.extend_from_slice(piece);
            }
            self.pieces = pieces;
            tests
        };
        self.skip_empty = skips_next(out.len(), tests);
        scan::large_pairs(self, boxes, simd, out);
    }

    /// What both searches do first: clears `out`, keeps the large boxes out
    /// and bins the others; returns the kernel level to search with.
    fn prepare(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>) -> SimdLevel {
        out.clear();
        assert!(boxes.len() < 1 << 29, "GridPairs: 2^29 boxes or more");
        let split = self.split_large(boxes);
        self.bin(boxes, split);
        self.simd
    }

    /// Chooses the boxes kept out of the grid (into `large`, ascending) and
    /// returns the largest extent binned and the binned minimum corners'
    /// bounds: the boxes larger than [`LARGE_FACTOR`] times the median
    /// extent (of a sample of them), the [`MAX_LARGE`] largest of them at
    /// most (ties at that rank stay in the grid). Any choice gives the same
    /// pairs; it only decides the cells. Leaves each box's extent (its `f64`
    /// bits) in `scratch[..n]`.
    fn split_large(&mut self, boxes: &[Aabb]) -> Split {
        self.large.clear();
        let n = boxes.len();
        let mut split = Split { largest: 0.0, origin: [f64::INFINITY; 3], top: [f64::NEG_INFINITY; 3] };
        if n == 0 {
            return split;
        }
        // Non-negative `f64`s order like their bits. The room for the sample
        // is reserved with the extents' (a push past them would double it).
        self.scratch.clear();
        self.scratch.reserve(n + MEDIAN_SAMPLE);
        self.scratch.extend(boxes.iter().map(|b| extent(b).to_bits()));
        let step = n.div_ceil(MEDIAN_SAMPLE);
        for i in (0..n).step_by(step) {
            self.scratch.push(self.scratch[i]);
        }
        let sample = &mut self.scratch[n..];
        let mid = sample.len() / 2;
        let median = f64::from_bits(*sample.select_nth_unstable(mid).1);
        let mut cap = LARGE_FACTOR * median;
        let over = self.scratch[..n].iter().filter(|&&e| f64::from_bits(e) > cap).count();
        if over > MAX_LARGE {
            // The largest MAX_LARGE only: the extent of rank n - 1 - MAX_LARGE.
            self.scratch.truncate(n);
            self.scratch.extend_from_within(..n);
            cap = f64::from_bits(*self.scratch[n..].select_nth_unstable(n - 1 - MAX_LARGE).1);
        }
        self.scratch.truncate(n);
        for (i, (b, &e)) in boxes.iter().zip(&self.scratch).enumerate() {
            let e = f64::from_bits(e);
            if e > cap {
                self.large.push(i as u32);
                continue;
            }
            split.largest = split.largest.max(e);
            for axis in 0..3 {
                let min = f64::from(b.min()[axis]);
                split.origin[axis] = split.origin[axis].min(min);
                split.top[axis] = split.top[axis].max(min);
            }
        }
        split
    }

    /// Bins the boxes not kept out: the cell size and the grid's
    /// dimensions, then a counting sort by cell into `ids`, `cells`,
    /// `bounds` and the cell table `first`.
    ///
    /// Cell coordinates are `floor((min - origin) / size)` in `f64`. With
    /// `size >= largest * CELL_MARGIN`, two overlapping boxes have corners
    /// at most `largest` apart, so their exact coordinates differ by at most
    /// `1 / CELL_MARGIN`; the coordinates are below `2^32` (at most
    /// `CELLS_PER_BOX` cells per box, fewer than `2^29` boxes), where the
    /// subtraction, the product and the reciprocal round by less than
    /// `2^-19` in all, far inside the margin `1 - 1 / CELL_MARGIN` (about
    /// `2^-10`), so the computed cells differ by at most one too.
    fn bin(&mut self, boxes: &[Aabb], Split { largest, origin, top }: Split) {
        let binned = boxes.len() - self.large.len();
        let span = (0..3).map(|axis| (top[axis] - origin[axis]).max(0.0)).fold(0.0, f64::max);
        // Points (every extent zero) take cells from the span alone.
        let mut size = (largest * CELL_MARGIN).max(f64::MIN_POSITIVE);
        if largest == 0.0 {
            size = size.max(span / (binned.max(1) as f64).cbrt());
        }
        let limit = CELLS_PER_BOX * binned + 64;
        let dims = loop {
            let dims: [usize; 3] = core::array::from_fn(|axis| {
                let cells = ((top[axis] - origin[axis]).max(0.0) / size).floor();
                // At least three cells per axis: the neighbour runs of two
                // rows then never overlap (see the module's rule).
                (cells.min(1e15) as usize + 1).max(3)
            });
            match dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)) {
                Some(count) if count <= limit => break dims,
                _ => size *= 1.25,
            }
        };
        let [nx, ny, _] = dims;
        self.shape = GridShape { cell_size: size, dims, large: self.large.len() };
        // The neighbour runs reach `nx * ny + nx + 2` cells past a box's own.
        let table = dims[0] * dims[1] * dims[2] + nx * ny + nx + 3;
        self.first.clear();
        self.first.resize(table + 1, 0);
        // The cells, counted, into `scratch` (over the extents, read already).
        let inv = 1.0 / size;
        let mut large = self.large.iter().copied().peekable();
        let mut w = 0;
        for (i, b) in boxes.iter().enumerate() {
            if large.peek() == Some(&(i as u32)) {
                large.next();
                continue;
            }
            let min = b.min();
            let coord = |axis: usize| (((f64::from(min[axis]) - origin[axis]) * inv) as usize).min(dims[axis] - 1);
            let cell = coord(0) + nx * (coord(1) + ny * coord(2));
            self.first[cell + 1] += 1;
            self.scratch[w] = (cell as u64) << 32 | i as u64;
            w += 1;
        }
        for c in 0..table {
            self.first[c + 1] += self.first[c];
        }
        // The counting sort's scatter, by the cell table's running starts
        // (`first[c]` counts up to `first[c + 1]`, then is put back).
        let stride = binned + scan::LANES;
        self.ids.resize(stride, 0);
        self.cells.resize(binned, 0);
        self.bounds.clear();
        self.bounds.resize(6 * stride, Real::NAN);
        for &key in &self.scratch[..binned] {
            let (cell, i) = ((key >> 32) as usize, key as u32);
            let at = self.first[cell] as usize;
            self.first[cell] += 1;
            self.ids[at] = i;
            self.cells[at] = cell as u32;
        }
        // The bounds in position order: one read of each box (at random) and
        // six writes in step, where scattering them wrote six lines per box
        // at random.
        let mut runs = self.bounds.chunks_exact_mut(stride);
        let mut run = || runs.next().expect("six bound runs");
        let (b0, b1, b2, b3, b4, b5) = (run(), run(), run(), run(), run(), run());
        for (at, &i) in self.ids[..binned].iter().enumerate() {
            let (lo, hi) = (boxes[i as usize].min(), boxes[i as usize].max());
            (b0[at], b1[at], b2[at], b3[at], b4[at], b5[at]) = (lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
        }
        // Every start advanced to the next cell's: shift them back.
        self.first.copy_within(..table, 1);
        self.first[0] = 0;
    }

    /// The bound arrays as slices (min x, y, z, max x, y, z), each of the
    /// binned boxes and `LANES` NaNs.
    fn bound_slices(&self) -> [&[Real]; 6] {
        let stride = self.cells.len() + scan::LANES;
        let b = &self.bounds;
        [
            &b[..stride],
            &b[stride..2 * stride],
            &b[2 * stride..3 * stride],
            &b[3 * stride..4 * stride],
            &b[4 * stride..5 * stride],
            &b[5 * stride..6 * stride],
        ]
    }
}

/// What [`GridPairs::split_large`] finds for the binning: the largest
/// extent binned and the bounds of the binned boxes' minimum corners.
struct Split {
    largest: f64,
    origin: [f64; 3],
    top: [f64; 3],
}

/// The pairs a search finds, as a share of its tests, below which the next
/// search skips the stores of tests that find none. Storing costs a test
/// about 17 instructions whatever it finds; the branch that skips it
/// mispredicts on about each test that finds a pair while those are rare
/// (some 15-20 cycles each), so skipping pays while fewer than about a
/// quarter of the tests find one. The pairs found bound those tests from
/// above (a test can find several), so the rule errs towards storing.
const SKIP_EMPTY_BELOW: f64 = 0.25;

/// Whether a search that found `pairs` pairs in `tests` tests makes the next
/// one skip empty tests' stores (see [`SKIP_EMPTY_BELOW`]): frames change
/// little from one to the next. A pile falling apart finds a pair in few of
/// its tests, a pile at rest in most. Either way the pairs and their order
/// are the same.
fn skips_next(pairs: usize, tests: usize) -> bool {
    (pairs as f64) < SKIP_EMPTY_BELOW * tests as f64
}

/// The box's largest side, in `f64` (one rounding of the subtraction at
/// most, inside the cells' margin), never `-0.0` (a box from `+0.0` to
/// `-0.0` is valid, and `-0.0`'s bits would sort above every extent).
#[inline]
fn extent(b: &Aabb) -> f64 {
    (0..3).map(|axis| f64::from(b.max()[axis]) - f64::from(b.min()[axis])).fold(0.0, f64::max) + 0.0
}

/// Whether boxes `i` and `j` of the set overlap (the large-large pairs).
#[inline]
fn overlap(boxes: &[Aabb], i: u32, j: u32) -> bool {
    intersects_aabb_aabb(&boxes[i as usize], &boxes[j as usize])
}
