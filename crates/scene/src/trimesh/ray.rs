//! Rays against a mesh's [`BlockTree`]: blocks of eight triangles, each
//! tested with one 8-wide watertight test.
//!
//! Why blocks: a BVH over single triangles (binned SAH with
//! `C_trav = C_isect`) ends in leaves of one to four triangles, so a camera
//! ray spends most of its time descending nodes and runs the triangle
//! test's unpredictable branches once per triangle. Grouping eight
//! neighbouring triangles into a block divides the primitives by 8, cutting
//! a level or two off the tree, and the block test has no data-dependent
//! branch. The same tree answers box queries (`TriMesh::visit_triangles`).

use proxima_broadphase::{RayControl, StaticBvh, PACKET_SIZE};
use proxima_narrowphase::kernels::{SimdLevel, WatertightRay};
use proxima_narrowphase::{Ray, RayHit, Real};

use super::ray_block::{BlockHits, TriangleBlock, LANES};
use super::{MeshRayHit, TriangleHit};

/// The traversal is clipped this much (relative) beyond the best hit: the
/// slab test's rounded entry `toi` of a block whose triangle is hit at a
/// vertex or an edge it shares with the best triangle can exceed that
/// triangle's own rounded `toi` by an ulp or two, and the block must still be
/// tested. Blocks are tested against the exact best `toi`, so the margin only
/// costs the rare extra block test.
const CLIP_MARGIN: Real = 1e-5;

/// Blocks of triangles and a BVH over their boxes (built in `build.rs`).
///
/// Invariants: `blocks[s]` is the block in slot `s` of the BVH's leaf order
/// (so a leaf's blocks are contiguous), `ids[s][l]` the index of the
/// triangle in its lane `l` (`u32::MAX` for an unused lane, only at the end
/// of a block), every triangle is in exactly one lane, and the box of BVH
/// primitive `b` (in build order) holds the vertices of every triangle of
/// `ids[slot[b]]`: box queries report build ids, rays leaf slots.
#[derive(Clone, Debug)]
pub(super) struct BlockTree {
    pub(super) bvh: StaticBvh,
    pub(super) blocks: Vec<TriangleBlock>,
    pub(super) ids: Vec<[u32; LANES]>,
    /// Per block in build order, its leaf slot (the inverse of `bvh.leaf_ids()`).
    pub(super) slot: Vec<u32>,
    /// Per triangle (index order), its material id; empty for a mesh without
    /// materials (every hit then reports 0). Kept with the blocks so that
    /// every ray path reports it from `finish`.
    pub(super) materials: Vec<u32>,
}

impl BlockTree {
    /// Heap bytes held: the blocks, their ids, the materials and the BVH
    /// (capacities).
    pub(super) fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * size_of::<TriangleBlock>()
            + self.ids.capacity() * size_of::<[u32; LANES]>()
            + self.slot.capacity() * size_of::<u32>()
            + self.materials.capacity() * size_of::<u32>()
            + self.bvh.heap_bytes()
    }

    /// The closest hit of `ray`, or with `any` the first hit found (the
    /// traversal stops there): the triangle index and the hit point's
    /// barycentrics, and the hit as `cast_ray_triangle` gives it.
    ///
    /// Ties in `toi` (a ray through an edge or a vertex that triangles
    /// share) go to the first triangle in the blocks' order (leaf slot, then
    /// lane), whatever order the blocks are visited in: so a packet of rays
    /// ([`BlockTree::cast_packet`]) reports what each ray alone does.
    #[inline(always)]
    pub(super) fn cast(&self, ray: &Ray, any: bool) -> Option<MeshRayHit> {
        #[cfg(target_arch = "x86_64")]
        if SimdLevel::Avx.is_available() {
            // SAFETY: this CPU has AVX (checked just above).
            return self.cast_with(ray, any, |block, r, t| unsafe { block.hits_avx(r, t) });
        }
        self.cast_with(ray, any, TriangleBlock::hits)
    }

    /// [`BlockTree::cast`] with a given block test.
    ///
    /// The blocks' BVH is walked front to back, leaf by leaf, with the ray
    /// clipped to the best hit so far (a block entered beyond it is never
    /// tested); only the final hit gets its normal, from the block's lane
    /// (whose lines are in cache, unlike the mesh's triangle list).
    #[inline(always)]
    fn cast_with(
        &self,
        ray: &Ray,
        any: bool,
        hits: impl Fn(&TriangleBlock, &WatertightRay, Real) -> BlockHits,
    ) -> Option<MeshRayHit> {
        let sheared = WatertightRay::new(ray);
        let mut best: Option<(u32, usize)> = None;
        let mut max_toi = ray.max_toi();
        self.bvh.visit_ray_leaves(ray, |slots, _entry| {
            let mut clipped = false;
            for slot in slots {
                let hits = hits(&self.blocks[slot as usize], &sheared, max_toi);
                if hits.mask == 0 {
                    continue;
                }
                if any {
                    let lane = hits.mask.trailing_zeros() as usize;
                    best = Some((slot, lane));
                    max_toi = hits.toi[lane];
                    return RayControl::Stop;
                }
                // Every hit lane has toi <= max_toi: the nearest is the new
                // best, unless it ties with a best that comes first.
                let (lane, toi) = hits.nearest();
                if toi < max_toi || best.is_none_or(|b| (slot, lane) < b) {
                    best = Some((slot, lane));
                    max_toi = toi;
                    clipped = true;
                }
            }
            if clipped {
                RayControl::Clip(max_toi + max_toi * CLIP_MARGIN)
            } else {
                RayControl::Continue
            }
        });
        best.map(|(slot, lane)| self.finish(ray, &sheared, slot, lane, max_toi))
    }

    /// The public hit on lane `lane` of block `slot` at `toi`: the normal
    /// from the block's lane (whose lines are in cache, unlike the mesh's
    /// triangle list) and the barycentrics.
    #[inline(always)]
    fn finish(&self, ray: &Ray, sheared: &WatertightRay, slot: u32, lane: usize, toi: Real) -> MeshRayHit {
        let block = &self.blocks[slot as usize];
        let normal = block.facing_normal(lane, ray.dir());
        // The lane is hit, so its edge functions share a sign and det != 0.
        let [u, v] = sheared.barycentrics(&block.vertices(lane)).unwrap_or([0.0; 2]);
        let index = self.ids[slot as usize][lane];
        let material = self.materials.get(index as usize).copied().unwrap_or(0);
        let triangle = TriangleHit { index, u, v, material };
        MeshRayHit { triangle, hit: RayHit { toi, normal } }
    }

    /// The closest hit of each ray of a packet of at most [`PACKET_SIZE`]
    /// (`out[r]` for `rays[r]`), exactly what [`BlockTree::cast`] gives
    /// each alone (see its tie rule): the rays traverse the blocks' BVH
    /// together ([`StaticBvh::visit_packet_leaves`]), each clipped to its
    /// own best hit, and every block a ray enters gets that ray's own block
    /// test.
    pub(super) fn cast_packet(&self, rays: &[Ray], out: &mut [Option<MeshRayHit>]) {
        #[cfg(target_arch = "x86_64")]
        if SimdLevel::Avx.is_available() {
            // SAFETY: this CPU has AVX (checked just above).
            return self.cast_packet_with(rays, out, |block, r, t| unsafe { block.hits_avx(r, t) });
        }
        self.cast_packet_with(rays, out, TriangleBlock::hits);
    }

    /// Whether each ray of a packet of at most [`PACKET_SIZE`] hits the
    /// mesh (`out[r]` for `rays[r]`): exactly when [`BlockTree::cast`]
    /// finds a hit for it alone. A ray is retired at its first hit.
    pub(super) fn occluded_packet(&self, rays: &[Ray], out: &mut [bool]) {
        #[cfg(target_arch = "x86_64")]
        if SimdLevel::Avx.is_available() {
            // SAFETY: this CPU has AVX (checked just above).
            return self.occluded_packet_with(rays, out, |blocks, r, t, mask| unsafe {
                TriangleBlock::any_hits_avx(blocks, r, t, mask)
            });
        }
        self.occluded_packet_with(rays, out, |blocks, sheared, max_toi, mask| {
            TriangleBlock::any_hits(blocks, sheared, max_toi, mask, TriangleBlock::hits)
        });
    }

    /// [`BlockTree::occluded_packet`] with a given leaf test:
    /// `any_hits(blocks, sheared, max_toi, mask)` gives the rays of `mask`
    /// that hit a triangle of `blocks`.
    #[inline(always)]
    fn occluded_packet_with(
        &self,
        rays: &[Ray],
        out: &mut [bool],
        any_hits: impl Fn(&[TriangleBlock], &[WatertightRay; PACKET_SIZE], &[Real; PACKET_SIZE], u32) -> u32,
    ) {
        let n = rays.len();
        let sheared: [WatertightRay; PACKET_SIZE] = core::array::from_fn(|r| WatertightRay::new(&rays[r.min(n - 1)]));
        let max_toi: [Real; PACKET_SIZE] = core::array::from_fn(|r| rays[r.min(n - 1)].max_toi());
        out[..n].fill(false);
        self.bvh.visit_packet_leaves(rays, |mask, slots, clip| {
            let mut hit = any_hits(&self.blocks[slots.start as usize..slots.end as usize], &sheared, &max_toi, mask);
            while hit != 0 {
                let r = hit.trailing_zeros() as usize;
                hit &= hit - 1;
                out[r] = true;
                clip[r] = -1.0;
            }
        });
    }

    /// [`BlockTree::cast_packet`] with a given block test.
    #[inline(always)]
    fn cast_packet_with(
        &self,
        rays: &[Ray],
        out: &mut [Option<MeshRayHit>],
        hits: impl Fn(&TriangleBlock, &WatertightRay, Real) -> BlockHits,
    ) {
        let n = rays.len();
        let sheared: [WatertightRay; PACKET_SIZE] = core::array::from_fn(|r| WatertightRay::new(&rays[r.min(n - 1)]));
        let mut best: [Option<(u32, usize)>; PACKET_SIZE] = [None; PACKET_SIZE];
        let mut max_toi: [Real; PACKET_SIZE] = core::array::from_fn(|r| rays[r.min(n - 1)].max_toi());
        self.bvh.visit_packet_leaves(rays, |mask, slots, clip| {
            let mut rest = mask;
            while rest != 0 {
                let r = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let mut clipped = false;
                for slot in slots.clone() {
                    let h = hits(&self.blocks[slot as usize], &sheared[r], max_toi[r]);
                    if h.mask == 0 {
                        continue;
                    }
                    let (lane, toi) = h.nearest();
                    if toi < max_toi[r] || best[r].is_none_or(|b| (slot, lane) < b) {
                        best[r] = Some((slot, lane));
                        max_toi[r] = toi;
                        clipped = true;
                    }
                }
                if clipped {
                    clip[r] = clip[r].min(max_toi[r] + max_toi[r] * CLIP_MARGIN);
                }
            }
        });
        for (r, o) in out[..n].iter_mut().enumerate() {
            *o = best[r].map(|(slot, lane)| self.finish(&rays[r], &sheared[r], slot, lane, max_toi[r]));
        }
    }
}

#[cfg(all(test, feature = "obj"))]
mod tests {
    use crate::{MeshBuild, MeshRayHit, TriMesh};
    use proxima_narrowphase::{cast_ray_triangle, Ray, Real};
    use proxima_test_support::gen::{self, Placement};
    use proxima_test_support::Rng;

    /// `TriMesh::cast_ray_closest` and `cast_ray_any` against a scan of every
    /// triangle with `cast_ray_triangle` on a shipped mesh: the same closest
    /// `toi` (bits), a reported triangle that `cast_ray_triangle` hits there
    /// with the same normal, and for `any` a hit exactly when there is one.
    /// Rays go from around the mesh to a random vertex or a random point of its
    /// box, and some are clipped by `max_toi`.
    #[test]
    fn mesh_rays_match_a_scan_of_every_triangle() {
        let path = format!("{}/../../assets/meshes/spot.obj", env!("CARGO_MANIFEST_DIR"));
        let mesh = TriMesh::from_obj(path).unwrap();
        let (v, i) = (mesh.vertices().to_vec(), mesh.indices().to_vec());
        rays_match_a_scan(&TriMesh::new_with(v, i, MeshBuild::FastRays).unwrap());
        rays_match_a_scan(&mesh);
    }

    fn rays_match_a_scan(mesh: &TriMesh) {
        let b = mesh.local_aabb();
        let around = Placement::new(2.0 * b.half_extents().norm(), 0.0, 0.0).at(b.center());
        let inside = Placement::new(b.half_extents().max(), 0.0, 0.0).at(b.center());
        let mut rng = proxima_test_support::rng(0x5CA7);
        let mut hits = 0;
        let n = 5_000;
        let scale = b.min().coords.amax().max(b.max().coords.amax());
        let mut max_err: Real = 0.0;
        for i in 0..n {
            let origin = gen::point(&mut rng, &around);
            let target = match rng.random_range(0..2) {
                0 => mesh.vertices()[rng.random_range(0..mesh.vertices().len())],
                _ => gen::point(&mut rng, &inside),
            };
            let max_toi = if i % 4 == 0 { gen::uniform(&mut rng, 0.0, 1.0) } else { Real::INFINITY };
            let ray = Ray::new(origin, target - origin, max_toi);
            let scan = mesh.triangles().filter_map(|t| cast_ray_triangle(&ray, &t)).map(|h| h.toi).reduce(Real::min);
            let got = mesh.cast_ray_closest(&ray);
            assert_eq!(got.map(|h| h.hit.toi.to_bits()), scan.map(Real::to_bits), "ray {i}: {ray:?}");
            if let Some(MeshRayHit { triangle: tri, hit }) = got {
                hits += 1;
                let t = &mesh.triangle(tri.index);
                assert_eq!(cast_ray_triangle(&ray, t), Some(hit), "ray {i}");
                // The barycentrics rebuild the hit point: within 1e-5 of the
                // mesh's size (the watertight toi and the weights are each
                // rounded on their own).
                let [a, b, c] = t.vertices();
                let rebuilt = a + (b - a) * tri.u + (c - a) * tri.v;
                let err = (rebuilt - ray.point_at(hit.toi)).norm();
                assert!(err <= 1e-5 * scale, "ray {i}: barycentric point off by {err}");
                let tol = 1e-5;
                assert!(tri.u >= -tol && tri.v >= -tol && tri.u + tri.v <= 1.0 + tol, "ray {i}: {tri:?}");
                max_err = max_err.max(err / scale);
            }
            let any = mesh.cast_ray_any(&ray);
            assert_eq!(any.is_some(), scan.is_some(), "ray {i}: any-hit");
            if let Some(MeshRayHit { triangle: tri, hit }) = any {
                let t = &mesh.triangle(tri.index);
                assert_eq!(cast_ray_triangle(&ray, t), Some(hit), "ray {i}: any-hit");
                let [a, b, c] = t.vertices();
                let err = (a + (b - a) * tri.u + (c - a) * tri.v - ray.point_at(hit.toi)).norm();
                assert!(err <= 1e-5 * scale, "ray {i}: any-hit barycentric point off by {err}");
            }
        }
        assert!((3 * n / 10..7 * n / 10).contains(&hits), "{hits} hits of {n}");
        // The bound is not loose by orders of magnitude (the check could fail).
        assert!(max_err > 1e-9, "largest relative error {max_err}");
    }
}
