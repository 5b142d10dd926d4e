//! Contact between two oriented boxes: the minimum-overlap axis of the
//! 15-axis separating-axis test.

use super::Contact;
use crate::closest::{closest_points_segment_segment, ClosestPoints};
use crate::intersect::{intersects_obb_obb, SAT_ABS_EPSILON};
use crate::math::{Matrix, Point, Real, UnitVector, Vector};
use crate::shape::Obb;

/// Edge axes `A_i x B_j` shorter than this (the sine of the angle between the
/// two edges) are skipped. Their direction is the ratio of two numbers of
/// size `sin`, each carrying the `~1e-7` rounding of `R = A^T B`, so below
/// `1e-3` the axis direction and the overlap divided by `|L|` are noise
/// amplified `1e4` times; the face axes then cover the configuration (for
/// exactly parallel edges the edge axes coincide with face axes). Skipping
/// can overestimate the depth by at most about `1e-3` times the boxes' size.
pub const OBB_EDGE_AXIS_MIN_SINE: Real = 1e-3;

/// An edge axis replaces the best face axis only when its overlap is smaller
/// by this fraction: `edge < (1 - OBB_EDGE_AXIS_REL_TOL) * face`. Face
/// contacts are the stable ones for stacking (a face normal does not swing
/// with small rotations, an edge cross product does) and they win exact
/// ties: with identical rotations `A_0 x B_1 = A_2` has the overlap of `A_2`,
/// and rounding alone (~1e-6 relative) would pick either. The reported depth
/// may exceed the true minimum by up to this fraction, and then the face's
/// support vertex can sit off the other box's face; `1e-3` keeps that to
/// about 0.4% of random contacts while staying far above rounding noise.
pub const OBB_EDGE_AXIS_REL_TOL: Real = 1e-3;

/// A support-direction component below this (in a unit direction) is treated
/// as zero: the box's supporting feature is then an edge or a face, and the
/// witness point is taken at its point nearest the other box's face centre
/// instead of at an arbitrary vertex. The depth varies along such a feature
/// by at most `2 * 1e-5 * half_extent`.
const SUPPORT_TIE: Real = 1e-5;

/// The axis of least overlap, in A's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Axis {
    /// Face normal `i` of A (`n = ±A_i`).
    FaceA(usize),
    /// Face normal `j` of B (`n = ±B_j`).
    FaceB(usize),
    /// `A_i x B_j`.
    Edge(usize, usize),
}

/// The contact between two solid oriented boxes; `None` when they are
/// disjoint (exactly when [`intersects_obb_obb`] is false, so touching
/// gives `Some` with `depth == 0`).
///
/// Separating-axis theorem for boxes (Gottschalk, Lin and Manocha, OBBTree,
/// SIGGRAPH 1996; Ericson, Real-Time Collision Detection, 4.4.1): in A's
/// frame, with `R = A^T B` and `t = A^T (c_b - c_a)`, the 15 candidate axes
/// are A's face normals `e_i`, B's face normals `R_j` and the edge cross
/// products `L = e_i x R_j`. On a unit axis `L` the boxes overlap by
/// `r_a + r_b - |t . L|` with `r_a = sum_k ha_k |L_k|` and
/// `r_b = sum_k hb_k |(R^T L)_k|`; for convex polyhedra the smallest overlap
/// over these axes is the penetration depth and its axis the minimum
/// translation direction. The normal is that axis oriented by `t . L >= 0`
/// (from A to B); moving B by more than `depth` along `normal` separates
/// the boxes (by exactly `depth`, they touch).
///
/// - Edge cross products with `|L| < 1e-3` are skipped,
///   and so are those within `1e-5` of a face normal of A or B (their
///   supporting feature is a face; the face axis is tested).
/// - Face axes win ties: an edge axis is taken only when its overlap is
///   smaller by more than `1e-3` (relative) plus the
///   overlaps' rounding, `4 eps (|t|_1 + sum of half-extents) / |L|`; a
///   face of B is taken over A's only when its overlap is smaller by more
///   than that rounding (`|L| = 1`), so parallel faces keep A's.
/// - Face contact (a face of A, say): `point_b` is B's deepest vertex, its
///   support point along `-normal`; `point_a = point_b + depth * normal`, on
///   A's face. When B's supporting feature is an edge or a face (a direction
///   component below `1e-5`), the point of that feature nearest A's face
///   centre is used, so parallel boxes get a point in their overlap region.
///   A face of B is handled the same way with the roles swapped.
/// - Edge contact: `point_a`, `point_b` are the closest points of A's and
///   B's support edges (Ericson 5.1.9), whose difference is `depth * normal`
///   (when a near-tie picks edges that miss each other, the two points are
///   set at their midpoint `+- depth * normal / 2`, off their edges by half
///   the miss).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_obb_obb, Obb, Point, Rotation, Vector};
/// let a = Obb::new(Point::origin(), Rotation::identity(), Vector::repeat(1.0));
/// let b = Obb::new(Point::new(0.0, 0.0, 1.8), Rotation::identity(), Vector::repeat(1.0));
/// let c = contact_obb_obb(&a, &b).unwrap();
/// assert!((c.depth - 0.2).abs() < 1e-5 && (c.normal.z - 1.0).abs() < 1e-6);
/// ```
#[must_use]
pub fn contact_obb_obb(a: &Obb, b: &Obb) -> Option<Contact> {
    contact_of_sat(a, b, &sat_boxes(a, b)?)
}

/// The contact of two boxes whose SAT gave `sat`.
#[inline]
pub(super) fn contact_of_sat(a: &Obb, b: &Obb, sat: &SatBoxes) -> Option<Contact> {
    let (pa, pb) = witness_points(a, b, sat);
    // Renormalised: the rotation matrix is orthonormal only up to rounding.
    let normal = UnitVector::new_normalize(a.axes() * sat.n);
    Some(Contact { point_a: a.to_world(&pa), point_b: a.to_world(&pb), normal, depth: sat.depth })
}

/// The SAT result of two intersecting boxes, in A's frame.
pub(super) struct SatBoxes {
    /// Rotation of B in A's frame, `A^T B`.
    pub r: Matrix,
    /// B's centre in A's frame, `A^T (c_b - c_a)`.
    pub t: Vector,
    /// The axis of least overlap (with the face preference).
    pub axis: Axis,
    /// Its unit normal from A to B, in A's frame.
    pub n: Vector,
    /// The overlap along it: `>= 0` for intersecting boxes, minus the
    /// separation for boxes within the prediction distance.
    pub depth: Real,
}

/// The SAT of two boxes; `None` when [`intersects_obb_obb`] is false.
pub(super) fn sat_boxes(a: &Obb, b: &Obb) -> Option<SatBoxes> {
    sat_boxes_within(a, b, 0.0)
}

/// The SAT of two boxes that intersect or are at most `prediction >= 0`
/// apart along their most separating axis (then `depth = -separation`).
/// With `prediction = 0`, `Some` exactly when [`intersects_obb_obb`] is.
///
/// For separated boxes the axis of least overlap is the axis of largest
/// separation; its separation is a lower bound of the boxes' distance
/// (equal for face and edge-edge configurations).
pub(super) fn sat_boxes_within(a: &Obb, b: &Obb, prediction: Real) -> Option<SatBoxes> {
    sat_boxes_noting(a, b, prediction, None)
}

/// [`sat_boxes_within`], which with `noted` also writes there the face axis
/// whose separation ended the test (the early-out below), or
/// [`SeparatingAxis::NONE`] when no face axis did.
#[inline]
pub(super) fn sat_boxes_noting(
    a: &Obb,
    b: &Obb,
    prediction: Real,
    noted: Option<&mut SeparatingAxis>,
) -> Option<SatBoxes> {
    let predicting = prediction > 0.0;
    let r = a.axes().tr_mul(b.axes());
    let t = a.axes().tr_mul(&(b.center() - a.center()));
    let (ha, hb) = (a.half_extents(), b.half_extents());
    let size = ha.sum() + hb.sum();
    // A face axis that separates the boxes by more than the prediction plus
    // the touching band of `intersects_obb_obb` (1e-6 of the sum of
    // half-extents) and this overlap's rounding decides: no contact, and no
    // need for the other axes. A separation along a unit axis is a lower
    // bound of the distance, so the boxes are farther apart than the
    // prediction; the full test below would find a least overlap below
    // `-prediction` too (the same face term, rounded alike) and return `None`.
    let faces = FaceTerms::new(ha, hb, &r, &t);
    let band = prediction + FACE_SEPARATION_BAND * (size + t.abs().sum());
    match noted {
        None if faces.separated(band) => return None,
        None => {}
        Some(noted) => {
            *noted = faces.separating(band);
            if *noted != SeparatingAxis::NONE {
                return None;
            }
        }
    }
    let MinOverlap { axis, n, depth, least_len } = min_overlap_axis(ha, hb, &r, &t, &faces);
    // The least overlap over the tested axes exceeds the true one by at most
    // ~1e-3 of the size (skipped near-parallel edge axes), so above
    // `SURE_OVERLAP` times the size the boxes intersect for sure. So do they
    // when every axis, near-parallel edges included, overlaps by more than
    // the overlaps' rounding (`PROVEN_OVERLAP`): no axis separates. Otherwise
    // the exact test decides (and stays the one definition of touching).
    let noise = PROVEN_OVERLAP * Real::EPSILON * (t.abs().sum() + size);
    let proven = least_len > noise;
    // An axis overlapping by less than minus that rounding and the widening
    // of `intersects_obb_obb`'s first pass (`SAT_ABS_EPSILON` on every `|R|`
    // entry, at most that times the sum of half-extents on any axis before
    // the division by `|L|`) separates the boxes in that pass too, and its
    // `f64` test then finds them apart (they are): the exact test would
    // answer `false`, so it is not run. The `f64` test works on the
    // rotations themselves, whose axes the f32 ones match within ~6e-8:
    // the unnormalised overlaps move by some 30-40 eps (|t|_1 + size), less
    // than the margin here; and as the margin holds `|t|_1`, only an axis
    // with `|L|` above ~7.6e-6 can qualify, far above the `f64` test's
    // least sine (1e-8), so the same axis separates there. Pairs within the
    // prediction but apart, the speculative contacts of a pile, end here.
    let apart = least_len < -(noise + SAT_ABS_EPSILON * size);
    let touching = depth > SURE_OVERLAP * size || proven || (!apart && intersects_obb_obb(a, b));
    if !touching && !predicting {
        return None;
    }
    let depth = if touching {
        depth.max(0.0)
    } else if depth >= -prediction {
        // A skipped near-parallel edge axis can leave a tiny positive
        // overlap on boxes the exact test separates.
        depth.min(0.0)
    } else {
        return None;
    };
    Some(SatBoxes { r, t, axis, n, depth })
}

/// A separating face axis of a box pair, kept from one test of the pair to
/// the next (a physics step's pairs are mostly the last step's, moved a
/// little: a pair apart along a face axis is usually apart along the same
/// one).
///
/// [`contact_obb_obb_noting`] and
/// [`contact_manifold_obb_obb_noting`](crate::contact_manifold_obb_obb_noting)
/// test the noted axis first (one axis, its offset one dot product, against
/// the full test's rotation of B into A's frame and six axes), and note the
/// face axis that separates the boxes this time, if one does.
/// The answer never depends on the note: the noted axis decides only when
/// it separates the boxes by more than the prediction plus twice the band
/// at which the full test would stop at that axis (and at least
/// `Real::MIN_POSITIVE`), so the full test would have answered `None` too. A
/// note from another pair, or from nowhere, only costs that first test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SeparatingAxis(u8);

impl SeparatingAxis {
    /// No axis noted.
    pub const NONE: Self = Self(0);

    /// The noted face axis: `0..3` for A's faces, `3..6` for B's.
    #[inline]
    #[must_use]
    pub fn face(self) -> Option<usize> {
        self.0.checked_sub(1).map(usize::from)
    }

    /// A note of face axis `face` (`0..3` A's, `3..6` B's), `None` past 5:
    /// for a caller that keeps its notes in its own form, as
    /// [`face`](Self::face) gives them.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
    /// use proxima::narrowphase::SeparatingAxis;
    /// assert_eq!(SeparatingAxis::from_face(4).and_then(SeparatingAxis::face), Some(4));
    /// assert_eq!(SeparatingAxis::from_face(6), None);
    /// ```
    #[inline]
    #[must_use]
    pub fn from_face(face: usize) -> Option<Self> {
        (face < 6).then(|| Self::of_face(face))
    }

    /// Face axis `k` (below 6).
    #[inline]
    fn of_face(k: usize) -> Self {
        debug_assert!(k < 6);
        Self(k as u8 + 1)
    }

    /// True when the noted face axis `L` separates the boxes by more than
    /// `prediction` plus twice the band of the full test's early-out (see
    /// [`SeparatingAxis`]): `|d . L| > r_a(L) + r_b(L) + band`, with
    /// `d = c_b - c_a` and `r(L) = sum_k h_k |L . axis_k|`.
    ///
    /// The full test's band holds `|t|_1`, `t = A^T d`; this one holds
    /// `1.8 |d|_1` in its place, never less (`|t|_1 <= sqrt 3 |t| = sqrt 3
    /// |d| <= sqrt 3 |d|_1`), so that the offset takes one dot product, not
    /// three.
    #[inline(always)]
    pub(super) fn separates(self, a: &Obb, b: &Obb, prediction: Real) -> bool {
        let Some(k) = self.face() else { return false };
        let d = b.center() - a.center();
        let (ha, hb) = (a.half_extents(), b.half_extents());
        let (ra, rb) = (a.axes(), b.axes());
        // `L` is A's axis `k` or B's axis `k - 3`; the other box's reach sums
        // its half-extents times `|L . axis|`, the own box's is its one
        // half-extent.
        let (l, own, other, other_h) =
            if k < 3 { (ra.column(k), ha[k], rb, hb) } else { (rb.column(k - 3), hb[k - 3], ra, ha) };
        let (lx, ly, lz) = (l[0], l[1], l[2]);
        let along = |c: usize| (lx * other[(0, c)] + ly * other[(1, c)] + lz * other[(2, c)]).abs();
        let reach = own + other_h[0] * along(0) + other_h[1] * along(1) + other_h[2] * along(2);
        let offset = lx * d.x + ly * d.y + lz * d.z;
        let size = ha.x + ha.y + ha.z + hb.x + hb.y + hb.z;
        let relative = NOTED_BAND * FACE_SEPARATION_BAND * (size + 1.8 * (d.x.abs() + d.y.abs() + d.z.abs()));
        // The floor: for boxes of subnormal size and offset the relative
        // band rounds to nothing, while each product still carries an
        // absolute rounding of up to half a subnormal step (`2^-150`); a
        // dozen of those stay far below `MIN_POSITIVE` (`2^-126`).
        let band = prediction + relative + Real::MIN_POSITIVE;
        offset.abs() > reach + band
    }
}

/// The noted axis's relative band over the full test's: twice it (with
/// `1.8 |d|_1` for `|t|_1`), far above the few `eps` of `|t|_1 + size` by
/// which the two computations of one axis's overlap can differ; an absolute
/// floor of `Real::MIN_POSITIVE` covers boxes of subnormal size.
const NOTED_BAND: Real = 2.0;

/// [`contact_obb_obb`] that tests the pair's noted separating face axis
/// first and notes the one that separates the boxes now (see
/// [`SeparatingAxis`]): the same answer, bit for bit, whatever `noted`
/// holds.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_obb_obb, contact_obb_obb_noting, Obb, Point, Rotation, SeparatingAxis, Vector};
/// let a = Obb::new(Point::origin(), Rotation::identity(), Vector::repeat(1.0));
/// let b = Obb::new(Point::new(0.0, 0.0, 2.5), Rotation::identity(), Vector::repeat(1.0));
/// let mut noted = SeparatingAxis::NONE;
/// assert!(contact_obb_obb_noting(&a, &b, &mut noted).is_none());
/// assert_eq!(noted.face(), Some(2)); // A's z faces
/// // Next frame, touching: the note no longer separates them.
/// let b = Obb::new(Point::new(0.0, 0.0, 1.9), Rotation::identity(), Vector::repeat(1.0));
/// assert_eq!(contact_obb_obb_noting(&a, &b, &mut noted), contact_obb_obb(&a, &b));
/// assert_eq!(noted, SeparatingAxis::NONE);
/// ```
#[must_use]
pub fn contact_obb_obb_noting(a: &Obb, b: &Obb, noted: &mut SeparatingAxis) -> Option<Contact> {
    if noted.separates(a, b, 0.0) {
        return None;
    }
    contact_of_sat(a, b, &sat_boxes_noting(a, b, 0.0, Some(noted))?)
}

/// A face axis's separation beyond which `intersects_obb_obb` reports the
/// boxes apart for sure, relative to the sum of half-extents and `|t|_1`
/// (its touching band is 1e-6 of the half-extents; the rounding of these
/// overlaps a few `eps` of that sum).
const FACE_SEPARATION_BAND: Real = 1e-5;

/// A least overlap above this fraction of the sum of half-extents proves
/// the boxes intersect: ten times the most that skipping near-parallel edge
/// axes (`OBB_EDGE_AXIS_MIN_SINE`) can overestimate it by.
const SURE_OVERLAP: Real = 1e-2;

/// Every axis overlapping by more than this many `eps (|t|_1 + sum of
/// half-extents)` proves the boxes intersect. An overlap before the division
/// by `|L|` (`r_a + r_b - |t . L|` with the unnormalised `L`, whose entries
/// come from `R`) carries an absolute rounding of a few `eps` of that sum,
/// whatever `|L|`: `R` and `t` are each within ~3 eps, and every term is a
/// product of them with the half-extents. 64 is a wide margin over it, and
/// `intersects_obb_obb` (whose bands only widen "touching", and whose f64
/// edge test separates only boxes truly apart) agrees on such boxes.
const PROVEN_OVERLAP: Real = 64.0;

/// The six face axes' terms, shared by the early-out and the least-overlap
/// search: on A's face `i`, `reach = ha_i + sum_j hb_j |R_ij|` and
/// `offset = t_i`; on B's face `j`, `reach = sum_i ha_i |R_ij| + hb_j` and
/// `offset = t . R_j`. The overlap is `reach - |offset|`.
struct FaceTerms {
    reach: [Real; 6],
    offset: [Real; 6],
}

impl FaceTerms {
    #[inline]
    fn new(ha: &Vector, hb: &Vector, r: &Matrix, t: &Vector) -> Self {
        let abs_r = r.abs();
        let mut terms = Self { reach: [0.0; 6], offset: [0.0; 6] };
        for k in 0..3 {
            terms.reach[k] = ha[k] + hb.dot(&abs_r.row(k).transpose());
            terms.offset[k] = t[k];
            terms.reach[3 + k] = ha.dot(&abs_r.column(k)) + hb[k];
            terms.offset[3 + k] = t.dot(&r.column(k));
        }
        terms
    }

    /// True when one of the six face axes shows the boxes apart by more
    /// than `band` (`|offset| > reach + band`): the first half of the SAT,
    /// cheap.
    #[inline]
    fn separated(&self, band: Real) -> bool {
        self.reach
            .iter()
            .zip(&self.offset)
            .fold(false, |apart, (&reach, &offset)| apart | (offset.abs() > reach + band))
    }

    /// The face axis that shows the boxes apart by the most beyond `band`,
    /// the first of equals; [`SeparatingAxis::NONE`] when [`separated`](Self::separated) is false.
    #[inline]
    fn separating(&self, band: Real) -> SeparatingAxis {
        // An axis is taken by `separated`'s own comparison, so that the two
        // agree whatever the float mode (a flush of subnormal differences to
        // zero included); the excess only ranks the axes taken.
        let mut best = (SeparatingAxis::NONE, 0.0);
        for k in 0..6 {
            let (offset, limit) = (self.offset[k].abs(), self.reach[k] + band);
            let excess = offset - limit;
            if offset > limit && (best.0 == SeparatingAxis::NONE || excess > best.1) {
                best = (SeparatingAxis::of_face(k), excess);
            }
        }
        best.0
    }
}

/// The single-contact witness points `(point_a, point_b)` in A's frame.
pub(super) fn witness_points(a: &Obb, b: &Obb, sat: &SatBoxes) -> (Vector, Vector) {
    let (ha, hb) = (a.half_extents(), b.half_extents());
    let SatBoxes { r, t, n, depth, .. } = sat;
    match sat.axis {
        Axis::FaceA(i) => {
            // B's support point along -n, in B's frame; ties go towards A's
            // face centre `ha_i n` (in B's frame `R^T (ha_i n - t)`).
            let dir_b = r.tr_mul(&(-n));
            let face_centre_in_b = r.tr_mul(&(n * ha[i] - t));
            let xb = support_towards(&dir_b, hb, &face_centre_in_b);
            let pb = t + r * xb;
            (pb + n * *depth, pb)
        }
        Axis::FaceB(j) => {
            // A's support point along n; ties go towards B's face centre.
            let face_centre_in_a = t - n * hb[j];
            let pa = support_towards(n, ha, &face_centre_in_a);
            (pa, pa - n * *depth)
        }
        Axis::Edge(i, j) => {
            let (a0, a1) = support_edge(n, ha, i);
            let nb = r.tr_mul(&(-n));
            let (b0, b1) = support_edge(&nb, hb, j);
            let ClosestPoints { point_a: pa, point_b: pb } = closest_points_segment_segment(
                &Point::from(a0),
                &Point::from(a1),
                &Point::from(t + r * b0),
                &Point::from(t + r * b1),
            );
            // The closest points differ by `depth * n` when the two edges'
            // projections along `n` cross, as they do for a strict minimum.
            // On a near-tie (touching boxes, nearly parallel edges rounded
            // in f32) the chosen pair may miss each other by a little: the
            // points are then moved to their midpoint `m`, `m +- depth n / 2`,
            // which keeps `point_a - point_b = depth * normal` exactly and
            // each point within half the miss of its edge.
            let mid = (pa.coords + pb.coords) * 0.5;
            let half = n * (*depth * 0.5);
            (mid + half, mid - half)
        }
    }
}

/// The SAT's axis of least overlap.
struct MinOverlap {
    /// The axis (with the face preference).
    axis: Axis,
    /// Its unit normal from A to B, in A's frame.
    n: Vector,
    /// The overlap along it.
    depth: Real,
    /// The least overlap before the division by `|L|` over all fifteen axes,
    /// near-parallel edge axes included (only exactly parallel edges, whose
    /// axis the face axes cover, are left out).
    least_len: Real,
}

/// The SAT axis of least overlap (with the face preference), as the axis, the
/// unit normal from A to B in A's frame, and the overlap.
fn min_overlap_axis(ha: &Vector, hb: &Vector, r: &Matrix, t: &Vector, faces: &FaceTerms) -> MinOverlap {
    let abs_r = r.abs();
    let mut best = (Axis::FaceA(0), Vector::x(), Real::INFINITY);
    // The absolute rounding of an overlap before the division by `|L|`
    // (`R` and `t` carry ~2 eps each): an edge must also beat the face by
    // `noise / |L|`, or near-zero depths (touching boxes) pick an edge axis
    // over a face on rounding alone (B16); a face of B must beat A's by
    // `noise`, or a face of each parallel to the other (a box resting on a
    // box) is picked by rounding, and the reference face and the points'
    // ids change under a move of one ulp.
    let noise = 4.0 * Real::EPSILON * (t.abs().sum() + ha.sum() + hb.sum());

    // A's faces (`e_i`), then B's (`R_j`). `least_face` is the least face
    // overlap, which the edges are measured against (the face preference
    // above may keep A's face a rounding deeper).
    let mut least_face = Real::INFINITY;
    for k in 0..6 {
        let (reach, offset) = (faces.reach[k], faces.offset[k]);
        let overlap = reach - offset.abs();
        least_face = least_face.min(overlap);
        let beats = if k < 3 || !matches!(best.0, Axis::FaceA(_)) { best.2 } else { best.2 - noise };
        if overlap < beats {
            best = if k < 3 {
                let mut n = Vector::zeros();
                n[k] = sign(offset);
                (Axis::FaceA(k), n, overlap)
            } else {
                (Axis::FaceB(k - 3), r.column(k - 3) * sign(offset), overlap)
            };
        }
    }
    // Edges: L = e_i x R_j, |L|^2 = R_i1j^2 + R_i2j^2 (no cancellation),
    // r_a = ha_i1 |R_i2j| + ha_i2 |R_i1j|, r_b = hb_j1 |R_ij2| + hb_j2 |R_ij1|.
    // (For separated boxes the overlaps are negative: the edge must still
    // be smaller, by the same fraction of the face's magnitude.)
    let mut least_len = least_face;
    let face_limit = least_face - OBB_EDGE_AXIS_REL_TOL * least_face.abs();
    // The nine axes' terms first, branch-free (the loop unrolls, and every
    // index is then a constant), then the choice among them.
    let (mut len2, mut offset, mut overlap_len) = ([0.0; 9], [0.0; 9], [0.0; 9]);
    for k in 0..9 {
        let (i, j) = (k / 3, k % 3);
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
        len2[k] = r[(i1, j)] * r[(i1, j)] + r[(i2, j)] * r[(i2, j)];
        let ra = ha[i1] * abs_r[(i2, j)] + ha[i2] * abs_r[(i1, j)];
        let rb = hb[j1] * abs_r[(i, j2)] + hb[j2] * abs_r[(i, j1)];
        // `t . L` with `L_i = 0`, `L_i1 = -R_i2j`, `L_i2 = R_i1j`, in
        // scalars: `L` itself is built only for an axis that wins
        // (building it in memory first stalled on store forwarding).
        offset[k] = t[i2] * r[(i1, j)] - t[i1] * r[(i2, j)];
        // The overlap is `overlap_len / len`; compared multiplied by `len`,
        // it is divided only when taken. Touching boxes (every overlap
        // >= 0) compare the squares, so `len = sqrt(len2)` is taken only
        // for the axes that win.
        overlap_len[k] = ra + rb - offset[k].abs();
    }
    let mut edge_best: Option<(Axis, Vector, Real)> = None;
    for k in 0..9 {
        let (len2, offset, overlap_len) = (len2[k], offset[k], overlap_len[k]);
        if len2 < PARALLEL_SIN2 {
            continue;
        }
        least_len = least_len.min(overlap_len);
        if len2 < OBB_EDGE_AXIS_MIN_SINE * OBB_EDGE_AXIS_MIN_SINE {
            continue;
        }
        let below = |x: Real, y: Real| {
            if x >= 0.0 && y >= 0.0 {
                x * x < y * y * len2
            } else {
                x < y * len2.sqrt()
            }
        };
        let beats_face = below(overlap_len + noise, face_limit);
        let beats_edge = edge_best.as_ref().is_none_or(|e| below(overlap_len, e.2));
        if !(beats_face && beats_edge) {
            continue;
        }
        let (i, j) = (k / 3, k % 3);
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let len = len2.sqrt();
        let mut l = Vector::zeros();
        l[i1] = -r[(i2, j)];
        l[i2] = r[(i1, j)];
        if !edge_axis_is_face_axis(r, &l, len, i, j) {
            edge_best = Some((Axis::Edge(i, j), l * (sign(offset) / len), overlap_len / len));
        }
    }
    let (axis, n, depth) = edge_best.unwrap_or(best);
    MinOverlap { axis, n, depth, least_len }
}

/// Below this `|L|^2`, edges are parallel: their cross axis is degenerate
/// and the face axes cover it (as in `intersects_obb_obb`).
const PARALLEL_SIN2: Real = 1e-12;

/// True when the edge axis `L = e_i x R_j` (length `len`, in A's frame) is
/// within [`SUPPORT_TIE`] of a face normal of A or of B: a unit-`L` component
/// below the tie in A's frame (other than `i`, where it is 0) or in B's frame
/// (other than `j`). Such an axis is skipped, since its supporting feature on
/// that box is a face, not an edge: `support_edge` would pick one of two
/// parallel edges by the sign of a rounding residue, and the closest points
/// of the wrong edge and B's edge lie a box width apart across the normal
/// (for instance `e_0 x R_1 = e_2` exactly, for a B whose `R_1 = e_1`, won over
/// the face `e_2` on a rounding difference in a depth of 1.5e-8). The face
/// axis it is close to, tested anyway, has the same overlap within
/// `~1.4e-5` times the boxes' size and offset (the overlap is Lipschitz in
/// the axis direction), well inside the depth slack of
/// `OBB_EDGE_AXIS_MIN_SINE`.
#[inline]
fn edge_axis_is_face_axis(r: &Matrix, l: &Vector, len: Real, i: usize, j: usize) -> bool {
    let tie = SUPPORT_TIE * len;
    let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
    let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
    let lb = r.tr_mul(l);
    l[i1].abs() < tie || l[i2].abs() < tie || lb[j1].abs() < tie || lb[j2].abs() < tie
}

/// `+1` for `x >= 0`, else `-1`: the normal points from A to B, and a zero
/// offset (concentric boxes) picks the positive axis.
#[inline]
fn sign(x: Real) -> Real {
    if x >= 0.0 {
        1.0
    } else {
        -1.0
    }
}

/// The point of the box `[-h, h]` furthest along `dir` (a unit vector in the
/// box frame). Components of `dir` below [`SUPPORT_TIE`] leave that
/// coordinate free: it is `towards` clamped to the box, the point of the
/// supporting edge or face nearest `towards`.
#[inline]
fn support_towards(dir: &Vector, h: &Vector, towards: &Vector) -> Vector {
    Vector::from_fn(|k, _| if dir[k].abs() < SUPPORT_TIE { towards[k].clamp(-h[k], h[k]) } else { sign(dir[k]) * h[k] })
}

/// The edge of the box `[-h, h]` parallel to axis `i` that is furthest along
/// `dir`, as its two endpoints in the box frame.
#[inline]
fn support_edge(dir: &Vector, h: &Vector, i: usize) -> (Vector, Vector) {
    let mut p = Vector::from_fn(|k, _| sign(dir[k]) * h[k]);
    p[i] = -h[i];
    let mut q = p;
    q[i] = h[i];
    (p, q)
}
