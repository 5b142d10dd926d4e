//! Swept oriented box against oriented box, by the separating axes over time.

use super::sweep::{motion_is_finite, SweepHit};
use crate::closest::closest_points_segment_segment;
use crate::contact::contact_obb_obb;
use crate::math::{rotation_matrix_f64, Point, Real, UnitVector, Vector};
use crate::shape::Obb;

type V64 = nalgebra::Vector3<f64>;

/// Edge-edge axes with `|a x b|^2` below this (a sine below `1e-6`) are left
/// out: the edges are parallel to within that angle, and the face axes then
/// decide (for parallel edges the problem is the 2D one of the boxes'
/// outlines across the edges, whose separating axes are face normals); the
/// position error is at most the sine times the boxes' size.
const PARALLEL2: f64 = 1e-12;

/// First contact of box A moving by `motion` with the static box B.
///
/// Two convex polytopes in translation touch exactly when their projections
/// overlap on every separating axis of the pair (for two boxes the 15 axes:
/// three face normals each and the nine cross products of their edge
/// directions). On an axis `L`, with `c = (c_B - c_A) . L` the centres'
/// distance, `s = motion . L` and `r = sum h_A,i |a_i . L| + sum h_B,j |b_j . L|`
/// the projected radii, the projections overlap while `|c - t s| <= r`: an
/// interval of `t`, `[(c - r) / s, (c + r) / s]` ordered (all of `t` or none
/// of it when `s = 0`). The boxes touch on the intersection of the fifteen
/// intervals, and the time of impact is its start when it meets `[0, 1]`:
/// no iteration, exact to the f64 rounding of f32 inputs (the centres'
/// difference is taken first, so large coordinates cost nothing; both
/// rotations are built in f64 from the quaternions).
///
/// - The normal is the axis whose interval starts last (the one that
///   separated the boxes longest), out of B towards A. `point` is on B's
///   surface where they touch, from the features facing each other at the
///   impact: on a face of B, the centre of A's facing vertex, edge or face,
///   kept within that face; on a face of A, the centre of B's facing
///   feature, kept within A's face; for two edges, B's point of the edges'
///   closest pair.
/// - Overlapping or touching at the start: `toi = 0`,
///   [`Penetrating`](crate::SweepStatus::Penetrating), with the normal and
///   point of [`contact_obb_obb`](crate::contact_obb_obb).
/// - A zero motion is the static test; a motion with a NaN or infinite
///   component, `None`. Flat boxes (zero half-extents) are rectangles.
///
/// The same contract as [`cast_shape_convex`](crate::cast_shape_convex) on
/// two boxes, which it replaces for box pairs.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_obb_obb, Obb, Point, Rotation, Vector};
/// let a = Obb::new(Point::origin(), Rotation::identity(), Vector::repeat(1.0));
/// let b = Obb::new(Point::new(5.0, 0.5, 0.0), Rotation::identity(), Vector::repeat(1.0));
/// let hit = cast_obb_obb(&a, &Vector::new(6.0, 0.0, 0.0), &b).unwrap();
/// assert!((hit.toi - 0.5).abs() < 1e-6);
/// assert_eq!(hit.normal.x, -1.0);
/// ```
#[must_use]
pub fn cast_obb_obb(a: &Obb, motion: &Vector, b: &Obb) -> Option<SweepHit> {
    if !motion_is_finite(motion) {
        return None;
    }
    let (ra, rb) = (rotation_matrix_f64(a.rotation()), rotation_matrix_f64(b.rotation()));
    let (ha, hb) = (a.half_extents().cast::<f64>(), b.half_extents().cast::<f64>());
    let d = b.center().coords.cast::<f64>() - a.center().coords.cast::<f64>();
    let m = motion.cast::<f64>();
    let mut window = Window { enter: f64::NEG_INFINITY, exit: f64::INFINITY, side: 0.0, kind: NONE };
    // In A's frame: B's axes are the columns of `C = R_A^T R_B`, and the
    // projected radii of the face and edge axes read off `|C|` (Gottschalk's
    // OBB test, here on the intervals over time).
    let c = ra.tr_mul(&rb);
    let abs_c = c.abs();
    let (da, ma) = (ra.tr_mul(&d), ra.tr_mul(&m));
    let (db, mb) = (rb.tr_mul(&d), rb.tr_mul(&m));
    for i in 0..3 {
        let r = ha[i] + hb.dot(&abs_c.row(i).transpose());
        if !window.clip(da[i], ma[i], r, i) {
            return None;
        }
    }
    for j in 0..3 {
        let r = ha.dot(&abs_c.column(j)) + hb[j];
        if !window.clip(db[j], mb[j], r, 3 + j) {
            return None;
        }
    }
    // `L = a_i x b_j` is, in A's frame, `e_i x C_j`: with `(i, i1, i2)` and
    // `(j, j1, j2)` cyclic, `L = C_i1j e_i2 - C_i2j e_i1`, and B's axes give
    // `b_j1 . L = C_ij2`, `b_j2 . L = -C_ij1`. `|L|^2 = 1 - C_ij^2`.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            if 1.0 - c[(i, j)] * c[(i, j)] <= PARALLEL2 {
                continue;
            }
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let along = |v: &V64| v[i2] * c[(i1, j)] - v[i1] * c[(i2, j)];
            let r =
                ha[i1] * abs_c[(i2, j)] + ha[i2] * abs_c[(i1, j)] + hb[j1] * abs_c[(i, j2)] + hb[j2] * abs_c[(i, j1)];
            if !window.clip(along(&da), along(&ma), r, 6 + 3 * i + j) {
                return None;
            }
        }
    }
    if window.enter <= 0.0 {
        // Touching at the start: the static contact, or (touching to
        // within its rounding only) a hit at once along the last axis.
        if let Some(c) = contact_obb_obb(a, b) {
            return Some(SweepHit::new(0.0, c.point_b, -c.normal));
        }
        if window.kind == NONE {
            return None; // no motion along any axis: the static test
        }
        window.enter = 0.0;
    }
    let axis = match window.kind {
        k @ 0..=2 => ra.column(k).into_owned(),
        k @ 3..=5 => rb.column(k - 3).into_owned(),
        k => ra.column(k / 3 - 2).cross(&rb.column(k % 3)),
    };
    let n = axis.normalize() * window.side;
    let normal = UnitVector::new_unchecked(n.cast::<Real>());
    // At the impact, from B's centre: A's centre, and the centres of the
    // features of A and B facing each other.
    let ca = m * window.enter - d;
    let fa = ca + feature(&ra, &ha, &-n);
    let fb = feature(&rb, &hb, &n);
    let point = match window.kind {
        // A's face: B's feature, within A's face.
        0..=2 => ca + ra * clamp(&ra.tr_mul(&(fb - ca)), &ha),
        // B's face: A's feature, within B's face.
        3..=5 => rb * clamp(&rb.tr_mul(&fa), &hb),
        // Two edges, through the features' centres along their directions:
        // B's point of their closest pair.
        k => {
            let (ea, eb) = (ra.column(k / 3 - 2) * ha[k / 3 - 2], rb.column(k % 3) * hb[k % 3]);
            let f = |p: V64| Point::from(p.cast::<Real>());
            closest_points_segment_segment(&f(fa - ea), &f(fa + ea), &f(fb - eb), &f(fb + eb)).point_b.coords.cast()
        }
    };
    let point = Point::from((b.center().coords.cast::<f64>() + point).cast::<Real>());
    Some(SweepHit::new((window.enter as Real).max(Real::MIN_POSITIVE), point, normal))
}

/// The centre of a box's feature (vertex, edge or face) farthest along
/// `u`, from the box's centre: `sum_i s_i h_i r_i` with `s_i` the sign of
/// `r_i . u`, or 0 where the axis is perpendicular to `u` to within `1e-6`
/// (the feature spans that axis).
#[inline]
fn feature(r: &nalgebra::Matrix3<f64>, h: &V64, u: &V64) -> V64 {
    let s = V64::from_fn(|i, _| {
        let t = r.column(i).dot(u);
        if t.abs() <= 1e-6 {
            0.0
        } else {
            h[i] * t.signum()
        }
    });
    r * s
}

/// `p` clamped to the box `[-h, h]`.
#[inline]
fn clamp(p: &V64, h: &V64) -> V64 {
    V64::from_fn(|i, _| p[i].clamp(-h[i], h[i]))
}

/// No axis yet.
const NONE: usize = usize::MAX;

/// The intersection of the axes' overlap intervals so far, and the axis
/// (with the side of B it faces A from) whose interval starts last.
struct Window {
    enter: f64,
    exit: f64,
    /// `-1` when B lies along `+axis` from A at the contact, `+1` along
    /// `-axis`: `side * axis` points out of B towards A.
    side: f64,
    /// Which axis: 0-2 A's faces, 3-5 B's, `6 + 3 i + j` the cross product
    /// of A's edge `i` and B's edge `j`.
    kind: usize,
}

impl Window {
    /// Clips the window by the interval where `|c - t s| <= r`; false when
    /// the window is empty (or outside `[0, 1]`): the boxes never touch.
    #[inline]
    fn clip(&mut self, c: f64, s: f64, r: f64, kind: usize) -> bool {
        if s == 0.0 {
            return c.abs() <= r;
        }
        // Entering at `c - t s = r` (B on the `+axis` side, closing) when
        // `s > 0`, at `c - t s = -r` when `s < 0`.
        let (enter, exit) = if s > 0.0 { ((c - r) / s, (c + r) / s) } else { ((c + r) / s, (c - r) / s) };
        if enter > self.enter {
            (self.enter, self.side, self.kind) = (enter, -s.signum(), kind);
        }
        self.exit = self.exit.min(exit);
        self.enter <= self.exit && self.enter <= 1.0 && self.exit >= 0.0
    }
}
