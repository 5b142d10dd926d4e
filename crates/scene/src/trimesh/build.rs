//! The mesh's one tree: triangles grouped into blocks of at most [`LANES`],
//! and a binned-SAH [`StaticBvh`] over the blocks' boxes. The blocks come
//! from a Morton order cut at cell boundaries ([`MeshBuild::FastBuild`]), or
//! from the leaves of an SAH tree over the triangles that counts block tests
//! ([`MeshBuild::FastRays`]).
//!
//! Why not a BVH over the triangles first (and the blocks from its leaf
//! order): the SAH build over `n` triangles costs `O(n log n)` binning
//! passes, and its nodes (about 0.3 wide nodes of 256 B per triangle) plus
//! the per-triangle boxes would be stored beside the blocks. A Morton sort
//! is two linear passes and a sort of `n` keys; neighbours along the curve
//! are neighbours in space (Lauterbach et al., "Fast BVH Construction on
//! GPUs", 2009), so the blocks' boxes stay small, and the SAH build runs on
//! `n / 8` boxes only.
//!
//! Determinism: the keys are `(code, triangle index)`, all distinct, so the
//! sort's output, the blocks, and the SAH tree over them (which is the same
//! for any thread count) do not depend on the number of threads.

use proxima_broadphase::{BuildOptions, LeafCost, StaticBvh};
use proxima_narrowphase::{Aabb, Point, Real, Vector};

use super::ray::BlockTree;
use super::ray_block::{TriangleBlock, LANES};
use super::MeshBuild;

/// Relative growth of the blocks' boxes (a few ulps of the largest
/// coordinate): the slab test rounds each plane distance, so without it a
/// ray through a triangle's vertex on the box's corner can find the box's
/// interval empty by an ulp.
const BOX_MARGIN: Real = 8.0 * Real::EPSILON;

/// Bits per axis of the Morton code (30 bits in all).
const MORTON_BITS: u32 = 10;

/// `x`'s low 10 bits spread to every third bit: bit `i` moves to bit `3 i`
/// (the classic shift-and-mask sequence, each step halving the gaps' width).
fn spread3(x: u32) -> u32 {
    let x = (x | (x << 16)) & 0x0300_00ff;
    let x = (x | (x << 8)) & 0x0300_f00f;
    let x = (x | (x << 4)) & 0x030c_30c3;
    (x | (x << 2)) & 0x0924_9249
}

/// The sort key of triangle `index` whose vertex sum (three times its
/// centroid) is `s`: its Morton code over the grid of `2^10` cells per axis
/// spanning `[lo, lo + 1 / inv)` (per axis), then its index.
#[inline]
fn key(s: &Vector, lo: &Vector, inv: &Vector, index: usize) -> u64 {
    let cell = |axis: usize| {
        // In [0, 1023.99]: `as` saturates NaN to 0 (never produced: finite input).
        let x = (s[axis] - lo[axis]) * inv[axis];
        x.clamp(0.0, ((1 << MORTON_BITS) - 1) as Real) as u32
    };
    let code = spread3(cell(0)) << 2 | spread3(cell(1)) << 1 | spread3(cell(2));
    u64::from(code) << 32 | index as u64
}

/// The vertex sum `a + b + c` of a triangle.
#[inline]
fn vertex_sum(vertices: &[Point], t: &[u32; 3]) -> Vector {
    vertices[t[0] as usize].coords + vertices[t[1] as usize].coords + vertices[t[2] as usize].coords
}

/// The triangles' sort keys (Morton code of the centroid, then index), sorted.
fn morton_order(vertices: &[Point], indices: &[[u32; 3]]) -> Vec<u64> {
    let bounds = |ts: &[[u32; 3]]| {
        ts.iter()
            .map(|t| vertex_sum(vertices, t))
            .fold((Vector::repeat(Real::INFINITY), Vector::repeat(Real::NEG_INFINITY)), |(lo, hi), s| {
                (lo.inf(&s), hi.sup(&s))
            })
    };
    #[cfg(feature = "parallel")]
    let (lo, hi) = {
        use rayon::prelude::*;
        indices.par_chunks(1 << 14).map(bounds).reduce(
            || (Vector::repeat(Real::INFINITY), Vector::repeat(Real::NEG_INFINITY)),
            |(l0, h0), (l1, h1)| (l0.inf(&l1), h0.sup(&h1)),
        )
    };
    #[cfg(not(feature = "parallel"))]
    let (lo, hi) = bounds(indices);
    // Cells per unit length; a flat axis (zero extent) maps to cell 0.
    let cells = (1 << MORTON_BITS) as Real;
    let inv = (hi - lo).map(|e| if e > 0.0 { cells / e } else { 0.0 });
    let key_of = |(i, t): (usize, &[u32; 3])| key(&vertex_sum(vertices, t), &lo, &inv, i);
    #[cfg(feature = "parallel")]
    let keys: Vec<u64> = {
        use rayon::prelude::*;
        indices.par_iter().enumerate().map(key_of).collect()
    };
    #[cfg(not(feature = "parallel"))]
    let keys: Vec<u64> = indices.iter().enumerate().map(key_of).collect();
    radix_sort_codes(keys)
}

/// Bits per pass of [`radix_sort_codes`]: three passes over the 30-bit codes.
const RADIX_BITS: u32 = 10;

/// `keys` sorted, when they come in index order (low 32 bits increasing):
/// a least-significant-digit radix sort of the codes (bits 32-61), three
/// stable counting passes of 10 bits, so equal codes keep their index
/// order and the result is the order of the whole keys. Linear, unlike a
/// comparison sort (which took a sixth of the build).
fn radix_sort_codes(mut keys: Vec<u64>) -> Vec<u64> {
    let mut out = vec![0u64; keys.len()];
    let buckets = 1usize << RADIX_BITS;
    for pass in 0..3 {
        let shift = 32 + pass * RADIX_BITS;
        let digit = |k: u64| (k >> shift) as usize & (buckets - 1);
        // Prefix sums of the digit counts: the first output position of each digit.
        let mut start = vec![0usize; buckets];
        for &k in &keys {
            start[digit(k)] += 1;
        }
        let mut sum = 0;
        for s in &mut start {
            (*s, sum) = (sum, sum + *s);
        }
        for &k in &keys {
            let d = digit(k);
            out[start[d]] = k;
            start[d] += 1;
        }
        core::mem::swap(&mut keys, &mut out);
    }
    keys
}

/// The fewest triangles a block is cut to before the end of the curve. A
/// larger minimum fills blocks better but makes them span larger cells, so
/// rays enter more of them; 1 saves little memory
/// (docs/decisions/0013-mesh-blocks-instead-of-a-triangle-bvh.md).
const MIN_FILL: usize = 2;

/// Cuts the Morton-sorted `keys` into blocks of at most [`LANES`]
/// triangles: returns the blocks' start positions (and `keys.len()` last).
///
/// The curve visits the cells of an octree one after the other: two
/// consecutive codes first differ at bit `b` when they lie in different
/// cells of the level `b / 3` from the bottom, so a block that spans that
/// boundary spans a cell of that size. Each block ends at the boundary of
/// highest such level among its candidate ends (after `MIN_FILL` to
/// `LANES` triangles), the farthest one on ties: blocks stay inside small
/// cells, and are full where the curve allows.
fn block_starts(keys: &[u64]) -> Vec<usize> {
    let n = keys.len();
    // The level of the boundary before position `j`: the bit length of the
    // two codes' xor (the codes are the high 32 bits of the keys).
    let level = |j: usize| if j >= n { u32::MAX } else { 64 - ((keys[j - 1] ^ keys[j]) >> 32).leading_zeros() };
    let mut starts = Vec::with_capacity(n / LANES + 2);
    let mut i = 0;
    while i < n {
        starts.push(i);
        let last = (i + LANES).min(n);
        let first = (i + MIN_FILL).min(last);
        // Ties go to the farthest end: `max_by_key` keeps the last maximum.
        i = (first..=last).max_by_key(|&j| level(j)).expect("first <= last");
    }
    starts.push(n);
    starts
}

/// The cost of one block test in node tests, for [`MeshBuild::FastRays`]:
/// eight watertight triangle tests against eight slab tests. The fastest
/// rays of 1, 2 and 3 on the shipped meshes
/// (docs/decisions/0013-mesh-blocks-instead-of-a-triangle-bvh.md).
const BLOCK_COST: u8 = 2;

/// The triangles in [`MeshBuild::FastRays`] block order and the blocks'
/// start positions (and `indices.len()` last): the leaves of a binned SAH
/// over the triangles' boxes that charges a leaf its block tests
/// ([`LeafCost::Blocks`]), so it fills blocks unless their triangles lie far
/// apart. Deterministic: the tree does not depend on the thread count.
fn sah_blocks(vertices: &[Point], indices: &[[u32; 3]]) -> (Vec<u32>, Vec<usize>) {
    let box_of = |t: &[u32; 3]| Aabb::from_points(t.iter().map(|&v| &vertices[v as usize])).expect("three points");
    #[cfg(feature = "parallel")]
    let boxes: Vec<Aabb> = {
        use rayon::prelude::*;
        indices.par_iter().map(box_of).collect()
    };
    #[cfg(not(feature = "parallel"))]
    let boxes: Vec<Aabb> = indices.iter().map(box_of).collect();
    let options = BuildOptions {
        max_leaf_size: LANES,
        leaf_cost: LeafCost::Blocks { size: LANES as u8, cost: BLOCK_COST },
        ..BuildOptions::default()
    };
    let bvh = StaticBvh::build_with(&boxes, options);
    let mut starts: Vec<usize> = bvh.leaf_ranges().iter().map(|r| r.start as usize).collect();
    starts.push(indices.len());
    (bvh.leaf_ids().to_vec(), starts)
}

impl BlockTree {
    /// The tree over a mesh's triangles (valid indices, finite vertices,
    /// fewer than `2^32` triangles: checked by `TriMesh::new`).
    ///
    /// Each block's box is the box of its triangles' vertices (degenerate
    /// ones included: box queries still find them), grown by
    /// [`BOX_MARGIN`] times the mesh's largest coordinate, so the rounded
    /// slab test cannot miss a block whose triangle the ray hits at a vertex
    /// or an edge on the box's boundary. Returns the tree and the mesh's
    /// box (the union of the blocks' boxes before that growth).
    pub(super) fn new(vertices: &[Point], indices: &[[u32; 3]], build: MeshBuild) -> (Self, Aabb) {
        let (order, starts) = match build {
            MeshBuild::FastBuild => {
                let keys = morton_order(vertices, indices);
                let starts = block_starts(&keys);
                // The low 32 bits of a key are the index (fewer than 2^32 triangles).
                (keys.iter().map(|&k| k as u32).collect(), starts)
            }
            MeshBuild::FastRays => sah_blocks(vertices, indices),
        };
        let chunks: Vec<&[u32]> = starts.windows(2).map(|w| &order[w[0]..w[1]]).collect();
        let box_of = |c: &&[u32]| {
            let points = c.iter().flat_map(|&t| indices[t as usize].map(|v| &vertices[v as usize]));
            Aabb::from_points(points).expect("a chunk holds a triangle")
        };
        #[cfg(feature = "parallel")]
        let mut boxes: Vec<Aabb> = {
            use rayon::prelude::*;
            chunks.par_iter().map(box_of).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let mut boxes: Vec<Aabb> = chunks.iter().map(box_of).collect();
        let aabb = boxes.iter().skip(1).fold(boxes[0], |acc, b| acc.merged(b));
        let scale = boxes.iter().fold(0.0, |s: Real, b| s.max(b.min().coords.amax()).max(b.max().coords.amax()));
        for b in &mut boxes {
            *b = b.loosened(scale * BOX_MARGIN);
        }
        let bvh = StaticBvh::build_with(&boxes, BuildOptions::default());
        let block = |&b: &u32| {
            let chunk = chunks[b as usize];
            let triangle = |&t: &u32| indices[t as usize].map(|v| vertices[v as usize]);
            let ids: [u32; LANES] = core::array::from_fn(|l| chunk.get(l).copied().unwrap_or(u32::MAX));
            (TriangleBlock::new(chunk.iter().map(triangle)), ids)
        };
        #[cfg(feature = "parallel")]
        let (blocks, ids) = {
            use rayon::prelude::*;
            bvh.leaf_ids().par_iter().map(block).unzip()
        };
        #[cfg(not(feature = "parallel"))]
        let (blocks, ids) = bvh.leaf_ids().iter().map(block).unzip();
        let mut slot = vec![0; chunks.len()];
        for (s, &b) in bvh.leaf_ids().iter().enumerate() {
            slot[b as usize] = s as u32;
        }
        (Self { bvh, blocks, ids, slot, materials: Vec::new() }, aabb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(feature = "obj")]
    use crate::TriMesh;
    #[cfg(feature = "obj")]
    use core::ops::ControlFlow;
    #[cfg(feature = "obj")]
    use proxima_broadphase::BroadPhase;
    #[cfg(feature = "obj")]
    use proxima_test_support::gen::{self, Placement};
    use proxima_test_support::Rng;

    #[cfg(feature = "obj")]
    /// The shipped spot mesh, its tree built both ways.
    fn spots() -> [TriMesh; 2] {
        let mesh = TriMesh::from_obj(format!("{}/../../assets/meshes/spot.obj", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let (v, i) = (mesh.vertices().to_vec(), mesh.indices().to_vec());
        [mesh, TriMesh::new_with(v, i, MeshBuild::FastRays).unwrap()]
    }

    /// A block ends at the highest cell boundary among its candidate ends:
    /// codes 0-3 and 64-69 lie in different cells of level 3 (bit 6), so
    /// the first block stops at 4 rather than at 8; the rest fits one block.
    #[test]
    fn blocks_end_at_the_highest_cell_boundary() {
        let keys: Vec<u64> = [0u64, 1, 2, 3, 64, 65, 66, 67, 68, 69].iter().map(|c| c << 32).collect();
        assert_eq!(block_starts(&keys), vec![0, 4, 10]);
        // Equal codes: every boundary has level 0, so blocks are full.
        assert_eq!(block_starts(&[7 << 32; 20]), vec![0, 8, 16, 20]);
    }

    /// The radix sort against `sort_unstable` on keys in index order with
    /// random 30-bit codes, many of them equal.
    #[test]
    fn radix_sort_matches_a_comparison_sort() {
        let mut rng = proxima_test_support::rng(0x5047);
        let keys: Vec<u64> = (0..5_000u64)
            .map(|i| {
                let code = match rng.random_range(0..3) {
                    0 => rng.random_range(0..8u64),
                    _ => rng.random_range(0..1u64 << 30),
                };
                code << 32 | i
            })
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(radix_sort_codes(keys), sorted);
    }

    #[test]
    fn spread3_moves_bit_i_to_bit_3i() {
        for i in 0..MORTON_BITS {
            assert_eq!(spread3(1 << i), 1 << (3 * i));
        }
        assert_eq!(spread3(0x3ff), 0x0924_9249);
    }

    /// The tree's invariants on a shipped mesh: the BVH validates, every
    /// triangle is in exactly one lane, each block's lanes hold its
    /// triangles' vertices (NaN for degenerate ones), `slot` inverts the
    /// leaf order, and the block box the BVH stores for a block holds its
    /// triangles (a wrong pairing of boxes and blocks fails here).
    #[test]
    #[cfg(feature = "obj")]
    fn blocks_cover_every_triangle_once_inside_their_boxes() {
        for mesh in spots() {
            blocks_cover_every_triangle_once(&mesh);
        }
    }

    #[cfg(feature = "obj")]
    fn blocks_cover_every_triangle_once(mesh: &TriMesh) {
        let tree = &mesh.tree;
        tree.bvh.validate().unwrap();
        let boxes = tree.bvh.boxes();
        let mut seen = vec![0u32; mesh.indices().len()];
        for (b, &s) in tree.slot.iter().enumerate() {
            assert_eq!(tree.bvh.leaf_ids()[s as usize] as usize, b);
            let ids = &tree.ids[s as usize];
            for (lane, &t) in ids.iter().enumerate() {
                if t == u32::MAX {
                    assert!(ids[lane..].iter().all(|&u| u == u32::MAX), "a hole in block {b}");
                    continue;
                }
                seen[t as usize] += 1;
                let tri = mesh.triangle(t);
                assert!(boxes[b].contains_aabb(&tri.aabb()), "triangle {t} outside block {b}'s box");
                let stored = tree.blocks[s as usize].vertices(lane);
                if tri.scaled_normal().norm() > 0.0 {
                    assert_eq!(stored, tri.vertices(), "triangle {t}");
                }
            }
        }
        assert!(seen.iter().all(|&k| k == 1), "a triangle in no lane or in two");
    }

    /// `visit_triangles` against a scan of every triangle's box, on random
    /// boxes about the mesh, half of them about a vertex (30-70% of them find
    /// a triangle).
    #[test]
    #[cfg(feature = "obj")]
    fn visit_triangles_matches_a_scan() {
        for mesh in spots() {
            visit_triangles_matches_a_scan_on(&mesh);
        }
    }

    #[cfg(feature = "obj")]
    fn visit_triangles_matches_a_scan_on(mesh: &TriMesh) {
        let b = mesh.local_aabb();
        let place = Placement::new(b.half_extents().max(), 0.0, 0.0).at(b.center());
        let mut rng = proxima_test_support::rng(0xB0C5);
        let (mut found, n) = (0, 400);
        for i in 0..n {
            // Half the boxes about a vertex (they find its triangles), half anywhere.
            let c = match i % 2 {
                0 => mesh.vertices()[rng.random_range(0..mesh.vertices().len())],
                _ => gen::point(&mut rng, &place),
            };
            let half = Vector::repeat(gen::uniform(&mut rng, 0.0, 0.2 * b.half_extents().max()));
            let query = Aabb::try_from_center(c, half).unwrap();
            let mut got = Vec::new();
            let _ = mesh.visit_triangles(&query, |t| {
                got.push(t);
                ControlFlow::Continue(())
            });
            got.sort_unstable();
            let scan: Vec<u32> = (0..mesh.indices().len() as u32)
                .filter(|&t| proxima_narrowphase::intersects_aabb_aabb(&mesh.triangle(t).aabb(), &query))
                .collect();
            assert_eq!(got, scan, "box {i}: {query:?}");
            found += usize::from(!scan.is_empty());
        }
        assert!((3 * n / 10..7 * n / 10).contains(&found), "{found} of {n} boxes found a triangle");
    }

    /// The same mesh gives the same tree on one thread and on two.
    #[test]
    #[cfg(feature = "obj")]
    fn the_tree_does_not_depend_on_the_thread_count() {
        let [mesh, _] = spots();
        let (v, i) = (mesh.vertices(), mesh.indices());
        for build in [MeshBuild::FastBuild, MeshBuild::FastRays] {
            let on = |threads| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                pool.install(|| BlockTree::new(v, i, build))
            };
            let ((one, box1), (two, box2)) = (on(1), on(2));
            assert_eq!(one.bvh, two.bvh, "{build:?}");
            assert_eq!((&one.ids, &one.slot, box1), (&two.ids, &two.slot, box2), "{build:?}");
            assert_eq!(format!("{:?}", one.blocks), format!("{:?}", two.blocks), "{build:?}");
        }
    }

    /// What `FastRays` is for: its blocks are tighter. The SAH weighs a
    /// block by its box's surface area (the chance a ray enters it), and
    /// its sum over the blocks is smaller than the Morton cut's, with fewer
    /// blocks; the mesh's box is the same.
    #[test]
    #[cfg(feature = "obj")]
    fn fast_rays_blocks_are_tighter() {
        let [fast, sah] = spots();
        let area = |m: &TriMesh| m.tree.bvh.leaf_boxes().iter().map(|b| f64::from(b.surface_area())).sum::<f64>();
        let (a_fast, a_sah) = (area(&fast), area(&sah));
        assert!(a_sah < 0.9 * a_fast, "block area {a_sah} with FastRays, {a_fast} with FastBuild");
        assert!(
            sah.tree.blocks.len() <= fast.tree.blocks.len(),
            "{} against {}",
            sah.tree.blocks.len(),
            fast.tree.blocks.len()
        );
        assert_eq!(sah.local_aabb(), fast.local_aabb());
    }
}
