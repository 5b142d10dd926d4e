//! Box-box contact manifold: up to four points, by clipping the incident
//! face against the reference face.

use super::clip::Polygon;
use super::manifold::{single, ContactManifold, Gathered, ManifoldPoint};
use super::obb_obb::{sat_boxes_noting, sat_boxes_within, witness_points, Axis, SatBoxes, SeparatingAxis};
use crate::math::{Matrix, Point, Real, UnitVector, Vector};
use crate::shape::Obb;

/// Slack below the reference face, relative to the boxes' size, within which
/// a clipped point still counts as touching (its depth is then reported as
/// 0): exactly touching faces are only touching up to rounding.
const TOUCH_SLACK: Real = 1e-5;

/// Id of the single point of an edge-edge contact (`| 4 i + j` for `A_i x B_j`).
const EDGE_EDGE_ID: u32 = 1 << 15;
/// Id of the single point of a face contact whose clipping left nothing
/// (`| the face's code`).
const FACE_FALLBACK_ID: u32 = 1 << 14;

/// The contact manifold of two solid oriented boxes, for boxes that
/// intersect or are at most `prediction` apart (speculative points, negative
/// depth); `None` otherwise. A negative or NaN `prediction` counts as 0, and
/// then the manifold exists exactly when
/// [`contact_obb_obb`](crate::contact_obb_obb) is `Some`.
///
/// The normal is the SAT axis of least overlap (of largest separation for
/// separated boxes), from A to B, as in
/// [`contact_obb_obb`](crate::contact_obb_obb). For a face axis, the classic
/// reference/incident clipping (Gottschalk's OBBTree SAT for the axis, then
/// Sutherland-Hodgman clipping; Ericson, Real-Time Collision Detection,
/// 8.3.4): the face of the axis is the reference face, the face of the other
/// box most anti-parallel to it is the incident face; the incident
/// quadrilateral is clipped against the four side planes of the reference
/// face, and every clipped vertex at most `prediction` above the reference
/// face is a point with depth = its distance below it (within `1e-5` of the
/// boxes' size of the face counts as touching, depth 0). The incident-box
/// witness is the clipped vertex, the reference-box witness its projection
/// onto the reference face. More than four points are reduced to four: the
/// deepest, the farthest from it, then the two that span the largest area on
/// either side of the line through those two. For an edge-edge axis the
/// manifold is the single point of the edges' closest points; so is a face
/// contact whose clipping leaves nothing (rounding at grazing contact).
///
/// Ids: a clipped point's id names the reference face, the incident face and
/// the incident vertex, or the incident edge and the reference side plane
/// whose crossing it is; it stays the same while the boxes rest on the same
/// faces.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_manifold_obb_obb, Obb, Point, Rotation, Vector};
/// let table = Obb::new(Point::origin(), Rotation::identity(), Vector::new(5.0, 5.0, 0.5));
/// let crate_ = Obb::new(Point::new(0.0, 0.0, 0.9), Rotation::identity(), Vector::repeat(0.5));
/// let m = contact_manifold_obb_obb(&table, &crate_, 0.0).unwrap();
/// assert_eq!(m.len(), 4); // the crate's four bottom corners
/// assert!(m.points().iter().all(|p| (p.depth - 0.1).abs() < 1e-5));
/// // 0.05 above the table: no contact, but a speculative manifold within 0.1.
/// let above = Obb::new(Point::new(0.0, 0.0, 1.05), Rotation::identity(), Vector::repeat(0.5));
/// assert!(contact_manifold_obb_obb(&table, &above, 0.0).is_none());
/// let m = contact_manifold_obb_obb(&table, &above, 0.1).unwrap();
/// assert!(m.points().iter().all(|p| (p.depth + 0.05).abs() < 1e-5));
/// ```
#[must_use]
pub fn contact_manifold_obb_obb(a: &Obb, b: &Obb, prediction: Real) -> Option<ContactManifold> {
    let prediction = prediction.max(0.0);
    manifold_of_sat(a, b, prediction, &sat_boxes_within(a, b, prediction)?)
}

/// [`contact_manifold_obb_obb`] that tests the pair's noted separating face
/// axis first and notes the one that separates the boxes now (see
/// [`SeparatingAxis`]): the same answer, bit for bit, whatever `noted`
/// holds.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{contact_manifold_obb_obb_noting, Obb, Point, Rotation, SeparatingAxis, Vector};
/// let table = Obb::new(Point::origin(), Rotation::identity(), Vector::new(5.0, 5.0, 0.5));
/// let crate_ = Obb::new(Point::new(0.0, 0.0, 1.2), Rotation::identity(), Vector::repeat(0.5));
/// let mut noted = SeparatingAxis::NONE;
/// assert!(contact_manifold_obb_obb_noting(&table, &crate_, 0.1, &mut noted).is_none());
/// assert_eq!(noted.face(), Some(2));
/// // Within the prediction now: speculative points, and no axis noted.
/// let crate_ = Obb::new(Point::new(0.0, 0.0, 1.05), Rotation::identity(), Vector::repeat(0.5));
/// assert_eq!(contact_manifold_obb_obb_noting(&table, &crate_, 0.1, &mut noted).unwrap().len(), 4);
/// assert_eq!(noted, SeparatingAxis::NONE);
/// ```
#[must_use]
pub fn contact_manifold_obb_obb_noting(
    a: &Obb,
    b: &Obb,
    prediction: Real,
    noted: &mut SeparatingAxis,
) -> Option<ContactManifold> {
    let prediction = prediction.max(0.0);
    if noted.separates(a, b, prediction) {
        return None;
    }
    manifold_of_sat(a, b, prediction, &sat_boxes_noting(a, b, prediction, Some(noted))?)
}

/// The manifold of two boxes whose SAT (within `prediction >= 0`) gave `sat`.
#[inline]
fn manifold_of_sat(a: &Obb, b: &Obb, prediction: Real, sat: &SatBoxes) -> Option<ContactManifold> {
    let normal = UnitVector::new_normalize(a.axes() * sat.n);
    let slack = TOUCH_SLACK * (a.half_extents().sum() + b.half_extents().sum());
    let limits = Limits { slack, prediction, touching: sat.depth >= 0.0 };
    let mut points = Gathered::new();
    let face = match sat.axis {
        // Reference A, incident B, in A's frame.
        Axis::FaceA(i) => {
            let face = face_code(0, i, &sat.n);
            let to_world = |x: &Vector, d: Real| (a.to_world(&(x + sat.n * d)), a.to_world(x));
            clip_incident(
                a.half_extents(),
                i,
                &sat.n,
                &sat.t,
                &sat.r,
                b.half_extents(),
                face,
                &limits,
                to_world,
                &mut points,
            );
            face
        }
        // Reference B, incident A, in B's frame: B's reference normal is -n.
        Axis::FaceB(j) => {
            let m = -sat.r.tr_mul(&sat.n);
            let rt = sat.r.transpose();
            let ta = -(rt * sat.t);
            let face = face_code(1, j, &m);
            let to_world = |x: &Vector, d: Real| (b.to_world(x), b.to_world(&(x + m * d)));
            clip_incident(b.half_extents(), j, &m, &ta, &rt, a.half_extents(), face, &limits, to_world, &mut points);
            face
        }
        Axis::Edge(i, j) => EDGE_EDGE_ID | (4 * i + j) as u32,
    };
    // A manifold has a point of depth >= 0 exactly when the boxes touch:
    // touching boxes whose clipping left only speculative points (or none)
    // get the SAT's witness point too.
    let shallow = points.points().iter().all(|p| p.depth < 0.0);
    if points.points().is_empty() || (limits.touching && shallow) {
        let (pa, pb) = witness_points(a, b, sat);
        let id = if face & EDGE_EDGE_ID != 0 { face } else { FACE_FALLBACK_ID | face };
        let witness = ManifoldPoint { point_a: a.to_world(&pa), point_b: a.to_world(&pb), depth: sat.depth, id };
        if points.points().is_empty() {
            return Some(single(normal, witness.point_a, witness.point_b, witness.depth, id));
        }
        points.push(witness);
    }
    Some(ContactManifold::from_points(normal, points.points()))
}

/// `[box (1 bit) | axis (2 bits) | sign (1 bit)]` of a face.
fn face_code(which: u32, axis: usize, n: &Vector) -> u32 {
    (which << 3) | ((axis as u32) << 1) | u32::from(n[axis] < 0.0)
}

/// Which clipped points are kept, and how their depth is reported.
struct Limits {
    /// Rounding slack of "touching".
    slack: Real,
    /// The prediction distance, `>= 0`.
    prediction: Real,
    /// The boxes intersect (then depths within the slack below 0 are 0).
    touching: bool,
}

/// In the reference box's frame (box `[-h, h]`, reference face on axis `i`
/// with outward unit normal `n = ±e_i` facing the incident box), clips the
/// incident box's face most anti-parallel to `n` (incident box: centre `c`,
/// axes the columns of `axes`, half-extents `hi`) against the reference
/// face's side planes `|x_k| <= h_k`, `k != i`, and pushes the clipped
/// vertices at most `prediction` above the face (depth `h_i - n . x`) into
/// `out`, mapped to world points by `to_world(x, depth)`.
#[allow(clippy::too_many_arguments)]
fn clip_incident(
    h: &Vector,
    i: usize,
    n: &Vector,
    c: &Vector,
    axes: &Matrix,
    hi: &Vector,
    face: u32,
    limits: &Limits,
    to_world: impl Fn(&Vector, Real) -> (Point, Point),
    out: &mut Gathered,
) {
    // Incident face: the axis most aligned with n, its face facing -n.
    let dots = axes.tr_mul(n);
    let k = dots.iamax();
    let sign = if dots[k] > 0.0 { -1.0 } else { 1.0 };
    let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
    let centre = c + axes.column(k) * (sign * hi[k]);
    let u = axes.column(k1) * hi[k1];
    let v = axes.column(k2) * hi[k2];
    let mut poly = Polygon::new(&[centre + u + v, centre - u + v, centre - u - v, centre + u - v]);
    let mut scratch = poly;
    // Sutherland-Hodgman against x_m <= h_m and -x_m <= h_m, m != i; the
    // two buffers alternate, so after the four passes the result is back
    // in `poly`.
    for (slot, m) in [(i + 1) % 3, (i + 2) % 3].into_iter().enumerate() {
        let label = 4 + 2 * slot as u8;
        poly.clip_axis_into(&mut scratch, m, 1.0, h[m], label);
        scratch.clip_axis_into(&mut poly, m, -1.0, h[m], label + 1);
    }
    let incident = ((k as u32) << 1) | u32::from(sign < 0.0);
    for v in poly.vertices() {
        let d = h[i] - n.dot(&v.x);
        if d < -(limits.slack + limits.prediction) {
            continue;
        }
        let depth = if limits.touching && d >= -limits.slack { d.max(0.0) } else { d };
        let (point_a, point_b) = to_world(&v.x, depth);
        let id = (face << 10) | (incident << 7) | u32::from(v.key);
        out.push(ManifoldPoint { point_a, point_b, depth, id });
    }
}
