//! The watertight ray/triangle test of
//! [`cast_ray_triangle`](proxima_narrowphase::cast_ray_triangle), with the
//! per-ray work done once per ray and the per-triangle work done on eight
//! triangles at a time (structure of arrays, two SSE2 registers per row).

use proxima_narrowphase::kernels::{TriangleLanes, WatertightRay};
use proxima_narrowphase::{Point, Real, UnitVector, Vector};

/// Triangles per [`TriangleBlock`].
pub(super) const LANES: usize = proxima_narrowphase::kernels::TRIANGLE_LANES;

/// Which lanes of a block a ray hits, and where.
#[derive(Clone, Copy, Debug)]
pub(super) struct BlockHits {
    /// Bit `l` is set when lane `l`'s triangle is hit at a `toi` in `[0, max_toi]`.
    pub(super) mask: u32,
    /// Per lane, the hit's `toi` (unspecified for lanes not in `mask`).
    pub(super) toi: [Real; LANES],
}

impl BlockHits {
    /// The hit lane of smallest `toi`, the lowest such lane on ties (the
    /// mesh's fixed tie order: see `BlockTree::cast`). `mask != 0`.
    #[inline]
    pub(super) fn nearest(&self) -> (usize, Real) {
        let first = self.mask.trailing_zeros() as usize;
        let mut best = (first, self.toi[first]);
        let mut mask = self.mask & (self.mask - 1);
        while mask != 0 {
            let lane = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if self.toi[lane] < best.1 {
                best = (lane, self.toi[lane]);
            }
        }
        best
    }
}

/// The SIMD kernels read a row in place with aligned loads (`_mm_load_ps`
/// at 0 or 4 floats, `_mm256_load_ps` at 0): each row is 32 bytes, at a
/// multiple of 32 bytes in the 32-byte-aligned block (`v` is its only field,
/// at offset 0, `repr(C)`), so every row is 32-byte aligned.
const _: () = assert!(
    core::mem::size_of::<[Real; LANES]>() == 32
        && core::mem::align_of::<TriangleBlock>() == 32
        && core::mem::offset_of!(TriangleBlock, v) == 0
);

/// Up to [`LANES`] triangles, structure of arrays: `v[vertex][axis][lane]`.
/// Unused lanes, and degenerate triangles (whose face normal does not
/// normalise, which `cast_ray_triangle` never reports), hold NaN vertices,
/// which no ray hits.
#[derive(Clone, Debug)]
#[repr(C, align(32))]
pub(super) struct TriangleBlock {
    v: [[[Real; LANES]; 3]; 3],
}

impl TriangleBlock {
    /// The block of `triangles` (at most [`LANES`], each as its three
    /// vertices), in order.
    pub(super) fn new(triangles: impl IntoIterator<Item = [Point; 3]>) -> Self {
        let mut v = [[[Real::NAN; LANES]; 3]; 3];
        for (lane, [a, b, c]) in triangles.into_iter().enumerate() {
            // The face normal `(b - a) x (c - a)`, as `Triangle::scaled_normal`,
            // normalises (`UnitVector::try_new(n, 0.0)` succeeds) exactly when
            // its squared norm is positive: that test without its `sqrt` and
            // divisions.
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            if !((b - a).cross(&(c - a)).norm_squared() > 0.0) {
                continue;
            }
            for (vertex, p) in [a, b, c].iter().enumerate() {
                for axis in 0..3 {
                    v[vertex][axis][lane] = p[axis];
                }
            }
        }
        Self { v }
    }

    /// The lanes whose triangle's box overlaps the closed box `[lo, hi]`:
    /// bit `l` set when, on every axis, `min(a, b, c) <= hi` and
    /// `lo <= max(a, b, c)` for lane `l`'s vertices (the test of
    /// `intersects_aabb_aabb` on the triangle's box). NaN lanes (unused or
    /// degenerate) compare false: never set.
    ///
    /// On x86_64 two SSE2 halves of 4 lanes (part of the baseline, so no
    /// run-time check); elsewhere [`TriangleBlock::overlap_mask_scalar`].
    /// `_mm_min_ps` / `_mm_max_ps` return their second operand when either is
    /// NaN: a lane's vertices are all finite (the mesh's, checked by
    /// `TriMesh::new`) or all NaN, so a finite lane gets its exact bounds and a
    /// NaN lane NaN bounds, which compare false. The answer is the scalar
    /// one's, bit for bit.
    #[inline]
    pub(super) fn overlap_mask(&self, lo: &Point, hi: &Point) -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            self.overlap_mask_sse2::<0>(lo, hi) | self.overlap_mask_sse2::<1>(lo, hi) << 4
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.overlap_mask_scalar(lo, hi)
        }
    }

    /// Lanes `4 * HALF .. 4 * HALF + 4` of [`TriangleBlock::overlap_mask`],
    /// bit `l` for lane `4 * HALF + l`. `HALF` is 0 or 1 (checked at compile
    /// time).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn overlap_mask_sse2<const HALF: usize>(&self, lo: &Point, hi: &Point) -> u32 {
        use core::arch::x86_64::*;
        const { assert!(HALF < LANES / 4) };
        // SAFETY: SSE2 is enabled on every x86_64 target. Each load reads the
        // 4 floats of the checked subslice `self.v[k][axis][4 * HALF..][..4]`,
        // 16-byte aligned as `_mm_load_ps` requires (see `hits_sse2`).
        unsafe {
            let row = |k: usize, axis: usize| _mm_load_ps(self.v[k][axis][4 * HALF..][..4].as_ptr());
            let mut inside = _mm_castsi128_ps(_mm_set1_epi32(-1));
            for axis in 0..3 {
                let (a, b, c) = (row(0, axis), row(1, axis), row(2, axis));
                let min = _mm_min_ps(_mm_min_ps(a, b), c);
                let max = _mm_max_ps(_mm_max_ps(a, b), c);
                let below = _mm_cmple_ps(min, _mm_set1_ps(hi[axis]));
                let above = _mm_cmple_ps(_mm_set1_ps(lo[axis]), max);
                inside = _mm_and_ps(inside, _mm_and_ps(below, above));
            }
            _mm_movemask_ps(inside) as u32
        }
    }

    /// [`TriangleBlock::overlap_mask`] lane by lane (`f32::min` skips a NaN
    /// operand, so each lane tests its own NaN).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn overlap_mask_scalar(&self, lo: &Point, hi: &Point) -> u32 {
        let mut inside = [true; LANES];
        for axis in 0..3 {
            let [a, b, c] = [&self.v[0][axis], &self.v[1][axis], &self.v[2][axis]];
            for l in 0..LANES {
                let (min, max) = (a[l].min(b[l]).min(c[l]), a[l].max(b[l]).max(c[l]));
                inside[l] &= (min <= hi[axis]) & (lo[axis] <= max) & !a[l].is_nan();
            }
        }
        inside.iter().enumerate().fold(0, |m, (l, &i)| m | u32::from(i) << l)
    }

    /// The vertices, `[vertex][axis][lane]`.
    #[inline(always)]
    pub(super) fn rows(&self) -> &TriangleLanes {
        &self.v
    }

    /// Lane `l`'s bit set when its vertices are NaN (unused or degenerate).
    #[inline]
    pub(super) fn nan_mask(&self) -> u32 {
        self.v[0][0].iter().enumerate().fold(0, |m, (l, x)| m | u32::from(x.is_nan()) << l)
    }

    /// Lane `lane`'s vertices.
    #[inline(always)]
    pub(super) fn vertices(&self, lane: usize) -> [Point; 3] {
        let p = |k: usize| Point::new(self.v[k][0][lane], self.v[k][1][lane], self.v[k][2][lane]);
        [p(0), p(1), p(2)]
    }

    /// The unit face normal of lane `lane`'s triangle on the side `dir` comes
    /// from (`normal . dir <= 0`), bit for bit as `cast_ray_triangle` reports
    /// it: `(b - a) x (c - a)` normalised. The lane holds a hit triangle, so
    /// it is not degenerate.
    pub(super) fn facing_normal(&self, lane: usize, dir: &Vector) -> UnitVector {
        let [a, b, c] = self.vertices(lane);
        let n =
            UnitVector::try_new((b - a).cross(&(c - a)), 0.0).unwrap_or_else(|| UnitVector::new_unchecked(Vector::z()));
        if n.dot(dir) > 0.0 {
            -n
        } else {
            n
        }
    }

    /// The ray against every lane: [`WatertightRay::toi`] per lane, bit for bit.
    ///
    /// Per lane, with `p' = p - o` for each vertex `p`: `x = p'_kx - sx p'_kz`,
    /// `y = p'_ky - sy p'_kz`; the edge functions `U = c_x b_y - c_y b_x`,
    /// `V = a_x c_y - a_y c_x`, `W = b_x a_y - b_y a_x`; a hit when they share
    /// a sign (zeros allowed), `det = U + V + W != 0` and
    /// `toi = ((U a'_kz + V b'_kz + W c'_kz) / det) sz` lies in
    /// `[0, max_toi]`. When an edge function of some lane rounds to exactly 0
    /// (a ray through an edge or a vertex: rare), the whole block takes the
    /// scalar path, which decides that sign in `f64`. NaN lanes compare false
    /// everywhere: they never hit and never take the scalar path.
    ///
    /// On x86_64 two SSE2 halves of 4 lanes (SSE2 is part of the baseline,
    /// so no run-time check), branch-free but for the rare scalar path;
    /// elsewhere the scalar path.
    #[inline(always)]
    pub(super) fn hits(&self, ray: &WatertightRay, max_toi: Real) -> BlockHits {
        #[cfg(target_arch = "x86_64")]
        {
            let mut out = BlockHits { mask: 0, toi: [0.0; LANES] };
            let (low, low_zeros) = self.hits_sse2::<0>(ray, max_toi, &mut out.toi);
            let (high, high_zeros) = self.hits_sse2::<1>(ray, max_toi, &mut out.toi);
            out.mask = low | high << 4;
            if low_zeros | high_zeros == 0 {
                return out;
            }
        }
        self.hits_scalar(ray, max_toi)
    }

    /// Lanes `4 * HALF .. 4 * HALF + 4` of [`TriangleBlock::hits`]: their hit
    /// mask (bit `l` for lane `4 * HALF + l`), their `toi` into `toi`, and a
    /// nonzero value when some edge function is exactly 0. `HALF` is 0 or 1
    /// (checked at compile time).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn hits_sse2<const HALF: usize>(&self, ray: &WatertightRay, max_toi: Real, toi: &mut [Real; LANES]) -> (u32, i32) {
        use core::arch::x86_64::*;
        const { assert!(HALF < LANES / 4) };
        let [kx, ky, kz] = ray.axes();
        let [sx, sy, sz] = ray.shear();
        let o = *ray.origin();
        // The four lanes of `toi` (slices by constants: checked at compile time).
        let toi: &mut [Real; 4] = (&mut toi[4 * HALF..4 * HALF + 4]).try_into().expect("4 lanes");
        // SAFETY: SSE2 is enabled on every x86_64 target. Each load reads the
        // 4 floats of the checked subslice `self.v[k][axis][4 * HALF..][..4]`
        // (in bounds: `HALF < 2`, asserted above), 16-byte aligned as
        // `_mm_load_ps` requires (every row is 32-byte aligned, asserted next
        // to `TriangleBlock`, and `4 * HALF` floats are 0 or 16 bytes); the
        // store writes the 4 floats of `toi`.
        unsafe {
            let row = |k: usize, axis: usize| _mm_load_ps(self.v[k][axis][4 * HALF..][..4].as_ptr());
            let (ox, oy, oz) = (_mm_set1_ps(o[kx]), _mm_set1_ps(o[ky]), _mm_set1_ps(o[kz]));
            let (sx, sy, sz) = (_mm_set1_ps(sx), _mm_set1_ps(sy), _mm_set1_ps(sz));
            // Per vertex: z = p_kz - o_kz, x = (p_kx - o_kx) - sx z, y = (p_ky - o_ky) - sy z.
            let vertex = |k: usize| {
                let z = _mm_sub_ps(row(k, kz), oz);
                let x = _mm_sub_ps(_mm_sub_ps(row(k, kx), ox), _mm_mul_ps(sx, z));
                let y = _mm_sub_ps(_mm_sub_ps(row(k, ky), oy), _mm_mul_ps(sy, z));
                (x, y, z)
            };
            let ((ax, ay, az), (bx, by, bz), (cx, cy, cz)) = (vertex(0), vertex(1), vertex(2));
            let u = _mm_sub_ps(_mm_mul_ps(cx, by), _mm_mul_ps(cy, bx));
            let v = _mm_sub_ps(_mm_mul_ps(ax, cy), _mm_mul_ps(ay, cx));
            let w = _mm_sub_ps(_mm_mul_ps(bx, ay), _mm_mul_ps(by, ax));
            let zero = _mm_setzero_ps();
            let any = |f: fn(__m128, __m128) -> __m128| _mm_or_ps(_mm_or_ps(f(u, zero), f(v, zero)), f(w, zero));
            let zeros = _mm_movemask_ps(any(|a, b| _mm_cmpeq_ps(a, b)));
            let neg = any(|a, b| _mm_cmplt_ps(a, b));
            let pos = any(|a, b| _mm_cmpgt_ps(a, b));
            let det = _mm_add_ps(_mm_add_ps(u, v), w);
            // ((U a_z + V b_z) + W c_z) / det * sz, in the scalar test's order.
            let num = _mm_add_ps(_mm_add_ps(_mm_mul_ps(u, az), _mm_mul_ps(v, bz)), _mm_mul_ps(w, cz));
            let t = _mm_mul_ps(_mm_div_ps(num, det), sz);
            // Same signs, det != 0 (unordered: NaN passes, as `!=` does), 0 <= t <= max_toi.
            let in_range = _mm_and_ps(_mm_cmple_ps(zero, t), _mm_cmple_ps(t, _mm_set1_ps(max_toi)));
            let hit = _mm_andnot_ps(_mm_and_ps(neg, pos), _mm_and_ps(_mm_cmpneq_ps(det, zero), in_range));
            _mm_storeu_ps(toi.as_mut_ptr(), t);
            (_mm_movemask_ps(hit) as u32, zeros)
        }
    }

    /// [`TriangleBlock::hits`] on one AVX register per row.
    ///
    /// # Safety
    /// The CPU must support AVX (see [`SimdLevel`](proxima_narrowphase::kernels::SimdLevel)).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) unsafe fn hits_avx(&self, ray: &WatertightRay, max_toi: Real) -> BlockHits {
        use core::arch::x86_64::*;
        let [kx, ky, kz] = ray.axes();
        let o = *ray.origin();
        let mut out = BlockHits { mask: 0, toi: [0.0; LANES] };
        // Scalar meaning: `hits` above, on 8 lanes at once.
        // SAFETY: the caller guarantees AVX. Row `v[k][axis]` is an `[f32; 8]`
        // at a multiple of 32 bytes in a 32-byte-aligned struct, as
        // `_mm256_load_ps` requires; the store writes the 8 floats of `out.toi`.
        let zeros = unsafe {
            let row = |k: usize, axis: usize| _mm256_load_ps(self.v[k][axis].as_ptr());
            let (ox, oy, oz) = (_mm256_set1_ps(o[kx]), _mm256_set1_ps(o[ky]), _mm256_set1_ps(o[kz]));
            let [sx, sy, sz] = ray.shear().map(|s| _mm256_set1_ps(s));
            let vertex = |k: usize| {
                let z = _mm256_sub_ps(row(k, kz), oz);
                let x = _mm256_sub_ps(_mm256_sub_ps(row(k, kx), ox), _mm256_mul_ps(sx, z));
                let y = _mm256_sub_ps(_mm256_sub_ps(row(k, ky), oy), _mm256_mul_ps(sy, z));
                (x, y, z)
            };
            let ((ax, ay, az), (bx, by, bz), (cx, cy, cz)) = (vertex(0), vertex(1), vertex(2));
            let u = _mm256_sub_ps(_mm256_mul_ps(cx, by), _mm256_mul_ps(cy, bx));
            let v = _mm256_sub_ps(_mm256_mul_ps(ax, cy), _mm256_mul_ps(ay, cx));
            let w = _mm256_sub_ps(_mm256_mul_ps(bx, ay), _mm256_mul_ps(by, ax));
            let zero = _mm256_setzero_ps();
            let any = |f: fn(__m256, __m256) -> __m256| _mm256_or_ps(_mm256_or_ps(f(u, zero), f(v, zero)), f(w, zero));
            let zeros = _mm256_movemask_ps(any(|a, b| _mm256_cmp_ps::<_CMP_EQ_OQ>(a, b)));
            let neg = any(|a, b| _mm256_cmp_ps::<_CMP_LT_OQ>(a, b));
            let pos = any(|a, b| _mm256_cmp_ps::<_CMP_GT_OQ>(a, b));
            let det = _mm256_add_ps(_mm256_add_ps(u, v), w);
            let num = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(u, az), _mm256_mul_ps(v, bz)), _mm256_mul_ps(w, cz));
            let t = _mm256_mul_ps(_mm256_div_ps(num, det), sz);
            let max_toi = _mm256_set1_ps(max_toi);
            let in_range = _mm256_and_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(zero, t), _mm256_cmp_ps::<_CMP_LE_OQ>(t, max_toi));
            let det_ok = _mm256_cmp_ps::<_CMP_NEQ_UQ>(det, zero);
            let hit = _mm256_andnot_ps(_mm256_and_ps(neg, pos), _mm256_and_ps(det_ok, in_range));
            _mm256_storeu_ps(out.toi.as_mut_ptr(), t);
            out.mask = _mm256_movemask_ps(hit) as u32;
            zeros
        };
        if zeros == 0 {
            out
        } else {
            self.hits_scalar(ray, max_toi)
        }
    }

    /// The rays of `mask` (bit `r` for `rays[r]`) that hit a triangle of
    /// `blocks` within their `max_toi`: bit `r` set exactly when some
    /// block's `hits` for `rays[r]` has a lane set (a hit ray skips the
    /// leaf's other blocks). The leaf test of a packet's any-hit traversal.
    #[inline(always)]
    pub(super) fn any_hits<const N: usize>(
        blocks: &[TriangleBlock],
        rays: &[WatertightRay; N],
        max_toi: &[Real; N],
        mask: u32,
        hits: impl Fn(&TriangleBlock, &WatertightRay, Real) -> BlockHits,
    ) -> u32 {
        let mut hit = 0;
        let mut rest = mask;
        while rest != 0 {
            let r = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if blocks.iter().any(|block| hits(block, &rays[r], max_toi[r]).mask != 0) {
                hit |= 1 << r;
            }
        }
        hit
    }

    /// [`TriangleBlock::any_hits`] with [`TriangleBlock::hits_avx`], one call
    /// per leaf: the block test inlines here.
    ///
    /// # Safety
    /// The CPU must support AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn any_hits_avx<const N: usize>(
        blocks: &[TriangleBlock],
        rays: &[WatertightRay; N],
        max_toi: &[Real; N],
        mask: u32,
    ) -> u32 {
        // SAFETY: the caller guarantees AVX.
        Self::any_hits(blocks, rays, max_toi, mask, |block, ray, t| unsafe { block.hits_avx(ray, t) })
    }

    /// [`TriangleBlock::hits`] one lane at a time.
    #[cfg_attr(target_arch = "x86_64", cold)]
    fn hits_scalar(&self, ray: &WatertightRay, max_toi: Real) -> BlockHits {
        let mut out = BlockHits { mask: 0, toi: [0.0; LANES] };
        for l in 0..LANES {
            if let Some(t) = ray.toi(&self.vertices(l), max_toi) {
                out.mask |= 1 << l;
                out.toi[l] = t;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_narrowphase::{cast_ray_triangle, Ray, Triangle};
    use proxima_test_support::gen::{self, Placement};
    use proxima_test_support::Rng;

    /// Every kernel against `cast_ray_triangle`, lane by lane: the same hits,
    /// the same `toi` and normal bits. Rays aim at a point of a random
    /// triangle of the block (inside, on an edge or on a vertex, the last two
    /// exercising the scalar path), blocks hold degenerate triangles and
    /// unused lanes, and `max_toi` sometimes cuts the hit off.
    #[test]
    fn block_kernels_match_cast_ray_triangle() {
        let mut rng = proxima_test_support::rng(0xB10C);
        let place = Placement::new(2.0, 0.2, 1.0);
        let (mut hit_cases, mut cases, mut scalar_blocks) = (0usize, 0usize, 0usize);
        for case in 0..4_000 {
            let n = rng.random_range(1..=LANES);
            let tris: Vec<Triangle> = (0..n)
                .map(|_| match rng.random_range(0..10) {
                    0 => {
                        // Degenerate: a repeated vertex.
                        let t = gen::triangle(&mut rng, &place);
                        Triangle::new(*t.a(), *t.a(), *t.c())
                    }
                    _ => gen::triangle(&mut rng, &place),
                })
                .collect();
            let block = TriangleBlock::new(tris.iter().map(Triangle::vertices));
            let t = &tris[rng.random_range(0..n)];
            let [a, b, c] = t.vertices();
            let target = match rng.random_range(0..4) {
                0 => a,
                1 => a + (b - a) * 0.5,
                _ => {
                    let (u, v) = (gen::uniform(&mut rng, 0.0, 1.0), gen::uniform(&mut rng, 0.0, 1.0));
                    let (u, v) = if u + v > 1.0 { (1.0 - u, 1.0 - v) } else { (u, v) };
                    a + (b - a) * u + (c - a) * v
                }
            };
            let origin = gen::point(&mut rng, &Placement::new(4.0, 0.0, 0.0));
            let dir = target - origin;
            if dir.norm() < 1e-3 {
                continue;
            }
            let max_toi = if rng.random_range(0..4) == 0 { gen::uniform(&mut rng, 0.0, 1.2) } else { Real::INFINITY };
            let ray = Ray::new(origin, dir, max_toi);
            let sheared = WatertightRay::new(&ray);
            let mut kernels =
                vec![("portable", block.hits(&sheared, max_toi)), ("scalar", block.hits_scalar(&sheared, max_toi))];
            #[cfg(target_arch = "x86_64")]
            if proxima_narrowphase::kernels::SimdLevel::Avx.is_available() {
                // SAFETY: checked just above.
                kernels.push(("avx", unsafe { block.hits_avx(&sheared, max_toi) }));
            }
            let any_zero = (0..n).any(|l| {
                let [a, b, c] = block.vertices(l).map(|p| p - origin);
                let [kx, ky, kz] = sheared.axes();
                let sh = |v: Vector| (v[kx] - sheared.shear()[0] * v[kz], v[ky] - sheared.shear()[1] * v[kz]);
                let ((ax, ay), (bx, by), (cx, cy)) = (sh(a), sh(b), sh(c));
                cx * by - cy * bx == 0.0 || ax * cy - ay * cx == 0.0 || bx * ay - by * ax == 0.0
            });
            scalar_blocks += usize::from(any_zero);
            cases += 1;
            hit_cases += usize::from(tris.iter().any(|tri| cast_ray_triangle(&ray, tri).is_some()));
            for (l, tri) in tris.iter().enumerate() {
                let expected = cast_ray_triangle(&ray, tri);
                for (name, got) in &kernels {
                    let hit = got.mask >> l & 1 == 1;
                    assert_eq!(hit, expected.is_some(), "case {case} lane {l} kernel {name}: {tri:?} {ray:?}");
                    if let Some(e) = expected {
                        assert_eq!(got.toi[l].to_bits(), e.toi.to_bits(), "case {case} lane {l} kernel {name}");
                        assert_eq!(block.facing_normal(l, ray.dir()), e.normal, "case {case} lane {l}");
                    }
                }
            }
            for (name, got) in &kernels {
                assert_eq!(got.mask >> n, 0, "case {case}: unused lanes hit ({name})");
            }
        }
        let frac = hit_cases as f64 / cases as f64;
        assert!((0.3..0.7).contains(&frac), "hit fraction {frac}");
        assert!(scalar_blocks > 100, "only {scalar_blocks} blocks took the scalar path");
    }

    /// Blocks of 0, 1, 7 and 8 triangles, and 9 and 1000 triangles cut into
    /// blocks of eight (the last one partly filled): each SSE2 half on its
    /// own, the whole `hits` and the AVX kernel give the scalar path's hit
    /// lanes and `toi` bits, and unused lanes never hit. Rays aim at a
    /// triangle's centroid or at a random point, so both hits and misses
    /// occur in every fill.
    #[test]
    fn every_block_fill_matches_the_scalar_path() {
        let mut rng = proxima_test_support::rng(0xB10D);
        let place = Placement::new(2.0, 0.2, 1.0);
        let mut hits = 0usize;
        for n in [0, 1, 7, 8, 9, 1_000] {
            let tris: Vec<Triangle> = (0..n).map(|_| gen::triangle(&mut rng, &place)).collect();
            let mut blocks: Vec<(usize, TriangleBlock)> = tris
                .chunks(LANES)
                .map(|chunk| (chunk.len(), TriangleBlock::new(chunk.iter().map(Triangle::vertices))))
                .collect();
            if n == 0 {
                blocks.push((0, TriangleBlock::new([])));
            }
            for case in 0..200 {
                let origin = gen::point(&mut rng, &Placement::new(4.0, 0.0, 0.0));
                let target = match n {
                    0 => gen::point(&mut rng, &place),
                    _ if rng.random_range(0..4) == 0 => gen::point(&mut rng, &place),
                    _ => {
                        let [a, b, c] = tris[rng.random_range(0..n)].vertices();
                        Point::from((a.coords + b.coords + c.coords) / 3.0)
                    }
                };
                let dir = target - origin;
                if dir.norm() < 1e-3 {
                    continue;
                }
                let max_toi =
                    if rng.random_range(0..4) == 0 { gen::uniform(&mut rng, 0.0, 1.2) } else { Real::INFINITY };
                let ray = WatertightRay::new(&Ray::new(origin, dir, max_toi));
                for (b, (used, block)) in blocks.iter().enumerate() {
                    let context = format!("{n} triangles, case {case}, block {b}");
                    let scalar = block.hits_scalar(&ray, max_toi);
                    assert_eq!(scalar.mask >> used, 0, "{context}: unused lanes hit (scalar)");
                    hits += scalar.mask.count_ones() as usize;
                    let same = |name: &str, got: &BlockHits| {
                        assert_eq!(got.mask, scalar.mask, "{context}: {name}");
                        for l in (0..LANES).filter(|l| scalar.mask >> l & 1 == 1) {
                            assert_eq!(got.toi[l].to_bits(), scalar.toi[l].to_bits(), "{context}: {name}, lane {l}");
                        }
                    };
                    same("hits", &block.hits(&ray, max_toi));
                    #[cfg(target_arch = "x86_64")]
                    {
                        let mut toi = [Real::NAN; LANES];
                        let halves = [
                            block.hits_sse2::<0>(&ray, max_toi, &mut toi),
                            block.hits_sse2::<1>(&ray, max_toi, &mut toi),
                        ];
                        for (half, (mask, zeros)) in halves.into_iter().enumerate() {
                            // An edge function of exactly 0: `hits` takes the scalar path.
                            if zeros != 0 {
                                continue;
                            }
                            assert_eq!(mask, scalar.mask >> (4 * half) & 0xf, "{context}: half {half}");
                            for l in (0..4).filter(|l| mask >> l & 1 == 1) {
                                let lane = 4 * half + l;
                                assert_eq!(toi[lane].to_bits(), scalar.toi[lane].to_bits(), "{context}: lane {lane}");
                            }
                        }
                        if proxima_narrowphase::kernels::SimdLevel::Avx.is_available() {
                            // SAFETY: checked just above.
                            same("avx", &unsafe { block.hits_avx(&ray, max_toi) });
                        }
                    }
                }
            }
        }
        assert!(hits > 500, "only {hits} hits");
    }

    /// The overlap mask against each triangle's own box test
    /// (`intersects_aabb_aabb`), lane by lane, and the SIMD halves against
    /// the scalar lanes: boxes around, across and touching the triangles (a
    /// face of the box on a vertex's coordinate), blocks with degenerate
    /// triangles and unused lanes (never set).
    #[test]
    fn overlap_mask_is_each_triangles_box_test() {
        use proxima_narrowphase::{intersects_aabb_aabb, Aabb};
        let mut rng = proxima_test_support::rng(0xB0C5);
        let place = Placement::new(2.0, 0.2, 1.0);
        let mut set = 0usize;
        for case in 0..20_000 {
            let n = rng.random_range(1..=LANES);
            let tris: Vec<Triangle> = (0..n)
                .map(|_| match rng.random_range(0..10) {
                    0 => {
                        let t = gen::triangle(&mut rng, &place);
                        Triangle::new(*t.a(), *t.a(), *t.c())
                    }
                    _ => gen::triangle(&mut rng, &place),
                })
                .collect();
            let block = TriangleBlock::new(tris.iter().map(Triangle::vertices));
            let (mut lo, mut hi) = (Point::origin(), Point::origin());
            for axis in 0..3 {
                let (x, y) = (rng.random_range(-2.5..2.5), rng.random_range(-2.5..2.5));
                (lo[axis], hi[axis]) = (Real::min(x, y), Real::max(x, y));
            }
            if case % 3 == 0 {
                // A face of the box exactly on a vertex's coordinate.
                let t = &tris[rng.random_range(0..n)];
                let axis = rng.random_range(0..3);
                let v = t.vertices()[rng.random_range(0..3)][axis];
                if rng.random_bool(0.5) {
                    lo[axis] = v;
                    hi[axis] = hi[axis].max(v);
                } else {
                    hi[axis] = v;
                    lo[axis] = lo[axis].min(v);
                }
            }
            let mask = block.overlap_mask(&lo, &hi);
            assert_eq!(mask, block.overlap_mask_scalar(&lo, &hi), "case {case}");
            let query = Aabb::new(lo, hi);
            for l in 0..LANES {
                let degenerate = tris.get(l).is_none_or(|t| t.scaled_normal().norm_squared() <= 0.0);
                let expected = !degenerate && intersects_aabb_aabb(&tris[l].aabb(), &query);
                assert_eq!(mask >> l & 1 == 1, expected, "case {case}, lane {l}");
                set += usize::from(expected);
            }
        }
        assert!(set > 10_000, "only {set} overlapping lanes");
    }

    #[test]
    fn nearest_keeps_the_first_of_equal_tois() {
        let hits = BlockHits { mask: 0b1011_0110, toi: [9.0, 2.0, 1.0, 0.5, 1.0, 3.0, 0.0, 1.0] };
        assert_eq!(hits.nearest(), (2, 1.0));
        let hits = BlockHits { mask: 0b0000_0010, toi: [0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0] };
        assert_eq!(hits.nearest(), (1, 4.0));
    }
}
