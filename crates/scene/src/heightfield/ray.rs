//! Rays against a heightfield: a walk over the cells under the ray, in order
//! along it, each cell's two triangles tested with the watertight kernel.

use proxima_narrowphase::kernels::{ray_aabb_interval, PrecomputedRay, WatertightRay};
use proxima_narrowphase::{cast_ray_triangle, Ray, RayHit, Real, Triangle};

use super::HeightField;

/// A ray's hit on a heightfield (see [`HeightField::cast_ray_closest`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeightFieldRayHit {
    /// The cell's row (along z), `< rows - 1`.
    pub row: usize,
    /// The cell's column (along x), `< cols - 1`.
    pub col: usize,
    /// Which of the cell's triangles: 0 or 1 (see [`HeightField`]).
    pub half: usize,
    /// That triangle's material id ([`HeightField::material`]): 0 on a
    /// field without materials.
    pub material: u32,
    /// The ray parameter and the unit normal of the triangle (field frame),
    /// facing the ray's origin: the hit of
    /// [`cast_ray_triangle`](proxima_narrowphase::cast_ray_triangle) on that
    /// triangle, bit for bit.
    pub hit: RayHit,
}

/// How far, relative to the largest coordinate magnitude involved, the walk
/// widens each cell: `32 f32::EPSILON`. The watertight test decides on
/// coordinates relative to the ray's origin, rounded to a few ulps of the
/// largest of them (the shear and the edge functions: under 8 roundings);
/// the walk's own cell coordinates carry a few more. A triangle the kernel
/// reports as hit thus lies within that distance of the ray's exact path,
/// and a cell widened by it is visited; 32 ulps covers both with a margin
/// and widens a cell by a negligible fraction unless the ray starts
/// thousands of cells away.
const WIDEN_ULPS: Real = 32.0 * Real::EPSILON;

/// Cells per block of a row strip whose height range the walk tests before
/// its cells (see `HeightField::block_heights`).
pub(super) const BLOCK_CELLS: usize = 8;

impl HeightField {
    /// The first hit of `ray` (field frame) on the field's triangles: the
    /// smallest `toi`, equal to the smallest over every triangle tested
    /// alone with [`cast_ray_triangle`]. Triangles are two-sided surfaces,
    /// hit from above and below; holes let the ray through.
    ///
    /// The ray is clipped to the field's box, then the cells its xz
    /// projection crosses are visited row strip by row strip, and within a
    /// strip column by column, both in the ray's direction (a 2D walk over
    /// the grid, Amanatides and Woo 1987, "A Fast Voxel Traversal Algorithm
    /// for Ray Tracing", here by strips); a row strip, a block of 8 cells of
    /// a strip, or a cell whose heights lie all above or all below the ray's
    /// height over it is skipped without a triangle test. Each cell is widened by a few ulps of the coordinates so that a
    /// ray along a grid line or through a grid vertex tests the cells on
    /// both sides: the kernel is watertight (a ray through a shared edge or
    /// vertex hits one of the triangles around it), and the walk does not
    /// let such a ray slip between two cells.
    ///
    /// Degenerate cases: a vertical ray (no xz motion) tests the cell under
    /// its origin (and its neighbours when on a grid line); a ray in a
    /// triangle's plane misses that triangle; an origin on the surface hits
    /// at `toi = 0`; a ray outside the grid's xz extent misses.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Point, Ray, Real, Vector};
    /// use nalgebra::DMatrix;
    /// // A flat field at height 1 over [-5, 5]^2, 10 x 10 cells.
    /// let field = HeightField::try_new(DMatrix::from_element(11, 11, 1.0), Vector::new(10.0, 1.0, 10.0)).unwrap();
    /// let down = Ray::new(Point::new(0.25, 3.0, -2.5), -Vector::y(), 10.0);
    /// let hit = field.cast_ray_closest(&down).unwrap();
    /// assert_eq!(hit.hit.toi, 2.0);
    /// assert_eq!(hit.hit.normal.into_inner(), Vector::y());
    /// assert_eq!((hit.row, hit.col), (2, 5));
    /// // Outside the grid's extent: a miss.
    /// assert!(field.cast_ray_closest(&Ray::new(Point::new(6.0, 3.0, 0.0), -Vector::y(), 10.0)).is_none());
    /// ```
    pub fn cast_ray_closest(&self, ray: &Ray) -> Option<HeightFieldRayHit> {
        let o = ray.origin();
        let d = ray.dir();
        // A world-space tolerance: a few ulps of the largest coordinate the
        // kernel and the walk handle (the origin, the field's corners).
        let (lo, hi) = (self.aabb.min(), self.aabb.max());
        let magnitude = o.coords.amax().max(lo.coords.amax()).max(hi.coords.amax());
        let slack = WIDEN_ULPS * magnitude;
        // The ray's parameters over the box widened by `slack`: every
        // triangle the kernel can report lies in it.
        let span = ray_aabb_interval(&PrecomputedRay::new(ray), &self.aabb.loosened(slack))?;
        let (t0, t1) = (span.toi_enter, span.toi_exit);

        // Grid coordinates: `u = (x / scale.x + 1/2) (cols - 1)` is `j` at
        // `x_j` (up to rounding), `v` likewise along z; along the ray
        // `u(t) = u0 + t du`, `v(t) = v0 + t dv`.
        let (nu, nv) = ((self.cols - 1) as Real, (self.rows - 1) as Real);
        let (ku, kv) = (nu / self.scale.x, nv / self.scale.z);
        let (u0, du, v0, dv) = (o.x * ku + 0.5 * nu, d.x * ku, o.z * kv + 0.5 * nv, d.z * kv);
        // The slack in cells, plus the rounding of `u(t)`, `v(t)` themselves.
        let reach = |c0: Real, dc: Real, n: Real| c0.abs() + (t1 * dc).abs() + n;
        let eu = slack * ku + WIDEN_ULPS * reach(u0, du, nu);
        let ev = slack * kv + WIDEN_ULPS * reach(v0, dv, nv);
        let walk = Walk { wr: WatertightRay::new(ray), oy: o.y, dy: d.y, slack };
        // `1 / du`, `1 / dv` (infinite for a subnormal motion, whose
        // parameters then span everything: conservative).
        let (iu, iv) = (1.0 / du, 1.0 / dv);

        // Why the walk may stop early: the cells are visited in strips of
        // increasing `t` (each strip's parameters start no earlier than the
        // previous strip's), and within a strip in increasing `t`. A hit in
        // a cell lies on the ray over that (widened) cell, so its `toi` is at
        // least the cell's entry parameter. Once a cell's entry exceeds the
        // best `toi` found, neither it nor any later cell of its strip can
        // do better, and once a strip's entry does, no later strip can: the
        // first cell hit ends the walk, but for the few cells the ray enters
        // before that hit's `toi` (a hit near a cell's far border).
        let mut best: Option<(Real, usize, usize, usize)> = None;
        let mut limit = ray.max_toi();
        let holes = !self.holes.is_empty();
        let (first_row, end_row) = cell_span(v0, dv, t0, t1, ev, self.rows - 1);
        for r in 0..end_row - first_row {
            let i = if dv < 0.0 { end_row - 1 - r } else { first_row + r };
            let (ta, tb) = interval(v0, dv, iv, i as Real, i as Real + 1.0, ev, t0, t1);
            if ta > limit {
                break;
            }
            // The strip's heights bound its cells': a ray above or below
            // them all over the strip crosses none of its cells.
            if ta > tb || !walk.may_cross(self.strip_heights[i], ta, tb) {
                continue;
            }
            let (first, end) = cell_span(u0, du, ta, tb, eu, self.cols - 1);
            let (rev, blocks) = (du < 0.0, self.cols.div_ceil(BLOCK_CELLS));
            let (mut s, mut block_end) = (0, 0);
            while first + s < end {
                let j = if rev { end - 1 - s } else { first + s };
                if s == block_end {
                    // Entering a block of cells: skip it whole when the ray
                    // passes above or below all its heights.
                    let b = j / BLOCK_CELLS;
                    let (lo, hi) = (b * BLOCK_CELLS, ((b + 1) * BLOCK_CELLS).min(self.cols - 1));
                    block_end = s + if rev { j + 1 - lo.max(first) } else { hi.min(end) - j };
                    let (ba, bb) = interval(u0, du, iu, lo as Real, hi as Real, eu, ta, tb);
                    if ba > limit {
                        break;
                    }
                    if ba > bb || !walk.may_cross(self.block_heights[i * blocks + b], ba, bb) {
                        s = block_end;
                        continue;
                    }
                }
                s += 1;
                let (ca, cb) = interval(u0, du, iu, j as Real, j as Real + 1.0, eu, ta, tb);
                if ca > limit {
                    break;
                }
                if ca > cb
                    || (holes && self.holes[i * (self.cols - 1) + j])
                    || !walk.may_cross(self.cell_height_range(i, j), ca, cb)
                {
                    continue;
                }
                for (half, tri) in self.cell_corners(i, j).iter().enumerate() {
                    // Strictly nearer hits only: on a tie the first found stays.
                    if let Some(t) = walk.wr.toi(tri, limit) {
                        if best.is_none_or(|b| t < b.0) {
                            best = Some((t, i, j, half));
                            limit = t;
                        }
                    }
                }
            }
        }
        let (_, row, col, half) = best?;
        let [a, b, c] = self.cell_corners(row, col)[half];
        // The same kernel on the same triangle: the same `toi`, with the normal.
        let hit = cast_ray_triangle(ray, &Triangle::new(a, b, c))?;
        Some(HeightFieldRayHit { row, col, half, material: self.material(row, col, half), hit })
    }
}

/// The ray's vertical motion and the prepared triangle test.
struct Walk {
    wr: WatertightRay,
    oy: Real,
    dy: Real,
    slack: Real,
}

impl Walk {
    /// False when over `[ta, tb]` the ray's height `oy + t dy` stays above
    /// the cell's highest corner or below its lowest (by more than the
    /// slack): a triangle is the convex hull of its corners, so the ray
    /// cannot cross it. True otherwise (also for infinite parameters).
    #[inline(always)]
    fn may_cross(&self, (lo, hi): (Real, Real), ta: Real, tb: Real) -> bool {
        let (ya, yb) = (self.oy + ta * self.dy, self.oy + tb * self.dy);
        let above = ya.min(yb) > hi + self.slack;
        let below = ya.max(yb) < lo - self.slack;
        !(above || below)
    }
}

/// The parameters over which `c(t) = c0 + t dc` lies in the cells' range
/// `[lo - e, hi + e]` (one cell `k`: `lo = k`, `hi = k + 1`), within
/// `[ta, tb]` (empty when the result's start exceeds its end),
/// `inv = 1 / dc`. With `dc = 0` the whole of `[ta, tb]`: the caller only
/// visits cells the ray's coordinate lies in. A NaN bound (`0 inf`) is
/// ignored by `max`/`min`: the interval stays whole.
#[inline(always)]
fn interval(c0: Real, dc: Real, inv: Real, lo: Real, hi: Real, e: Real, ta: Real, tb: Real) -> (Real, Real) {
    if dc == 0.0 {
        return (ta, tb);
    }
    let (p, q) = ((lo - e - c0) * inv, (hi + e - c0) * inv);
    (ta.max(p.min(q)), tb.min(p.max(q)))
}

/// The cells `first..end` of `0..n` whose widened range `[k - e, k + 1 + e]`
/// the coordinate `c0 + t dc`, `t` in `[ta, tb]`, reaches; the ray meets
/// them in increasing order for `dc >= 0`, else decreasing.
#[inline(always)]
fn cell_span(c0: Real, dc: Real, ta: Real, tb: Real, e: Real, n: usize) -> (usize, usize) {
    let (ca, cb) = if dc == 0.0 { (c0, c0) } else { (c0 + ta * dc, c0 + tb * dc) };
    let (lo, hi) = (ca.min(cb) - e, ca.max(cb) + e);
    // Cell `k` is reached when `[k - e, k + 1 + e]` meets `[lo + e, hi - e]`:
    // `lo - 1 <= k <= hi`. Outside `[0, n]` entirely (NaN included), no cell.
    let last = n as Real - 1.0;
    if hi >= 0.0 && lo <= n as Real {
        ((lo - 1.0).ceil().clamp(0.0, last) as usize, hi.floor().clamp(0.0, last) as usize + 1)
    } else {
        (0, 0)
    }
}
