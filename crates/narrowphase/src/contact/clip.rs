//! Sutherland-Hodgman clipping of an incident polygon against the side
//! planes of a reference face, keeping track of which features each clipped
//! vertex comes from (the manifold points' ids).

use crate::math::{Real, Vector};

/// A vertex of a polygon being clipped.
#[derive(Clone, Copy, Debug)]
pub(super) struct ClipVertex {
    /// Position, in the frame of the reference face.
    pub x: Vector,
    /// The features it comes from: an incident vertex `v < 8` is `v`; the
    /// crossing of the line labelled `l` with the side plane labelled `p`
    /// is `8 + 8 l + p` (< 72, so 7 bits).
    pub key: u8,
    /// The label of the line from this vertex to the next: incident edge `e`
    /// (from vertex `e` to `e + 1`) is `e`, side plane `p` is `p`. Incident
    /// edges and side planes use disjoint labels (edges `0..4`, planes `4..8`).
    edge: u8,
}

/// At most eight vertices (a quadrilateral clipped by four planes; each
/// pass adds at most one vertex).
#[derive(Clone, Copy, Debug)]
pub(super) struct Polygon {
    items: [ClipVertex; 8],
    len: usize,
}

impl Polygon {
    /// The polygon with these vertices, keyed `0, 1, ...` in order.
    pub fn new(vertices: &[Vector]) -> Self {
        let mut p = Self::empty();
        for (k, x) in vertices.iter().enumerate() {
            p.push(ClipVertex { x: *x, key: k as u8, edge: k as u8 });
        }
        p
    }

    #[inline]
    fn empty() -> Self {
        Self { items: [ClipVertex { x: Vector::zeros(), key: 0, edge: 0 }; 8], len: 0 }
    }

    #[inline]
    fn push(&mut self, v: ClipVertex) {
        if self.len < 8 {
            self.items[self.len] = v;
            self.len += 1;
        }
    }

    /// The vertices.
    pub fn vertices(&self) -> &[ClipVertex] {
        &self.items[..self.len]
    }

    /// The part of the polygon with `normal . x <= offset`, the side plane
    /// labelled `label` (`4..8`), into `out` (overwritten). A segment (two
    /// vertices) is clipped as a segment, not as a closed polygon.
    #[inline]
    pub fn clip_into(&self, out: &mut Self, normal: &Vector, offset: Real, label: u8) {
        self.clip_by(out, |x| normal.dot(x) - offset, label);
    }

    /// The part of the polygon with `s x_m <= limit` (`s = ±1`), into `out`
    /// (overwritten): one product per vertex instead of a dot product (a
    /// box's side planes), and the box-box clipping passes alternate between
    /// two buffers instead of returning 136-byte polygons by value.
    #[inline]
    pub fn clip_axis_into(&self, out: &mut Self, m: usize, s: Real, limit: Real, label: u8) {
        self.clip_by(out, |x| s * x[m] - limit, label);
    }

    /// Sutherland-Hodgman against `side(x) <= 0`, `side` affine in `x`,
    /// into `out` (overwritten).
    #[inline(always)]
    fn clip_by(&self, out: &mut Self, side: impl Fn(&Vector) -> Real, label: u8) {
        out.len = 0;
        let pts = self.vertices();
        let n = pts.len();
        let edges = if n == 2 { 1 } else { n };
        for (idx, p) in pts.iter().enumerate() {
            let dp = side(&p.x);
            if dp <= 0.0 {
                out.push(*p);
            }
            if idx >= edges {
                continue;
            }
            let q = &pts[(idx + 1) % n];
            let dq = side(&q.x);
            if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
                let x = p.x + (q.x - p.x) * (dp / (dp - dq));
                let key = 8 + 8 * p.edge + label;
                // Leaving: the boundary continues along the side plane;
                // entering: along the incident edge.
                let edge = if dp < 0.0 { label } else { p.edge };
                out.push(ClipVertex { x, key, edge });
            }
        }
    }
}

/// `poly` clipped by the side planes `normal . x <= offset` of a reference
/// face (labels `4, 5, ...` in order; at most four planes).
pub(super) fn clip_to_sides(poly: Polygon, sides: &[(Vector, Real)]) -> Polygon {
    // Two buffers, each pass clipping one into the other (a pass that
    // returned its polygon by value copied 136 bytes).
    let mut bufs = [poly, poly];
    for (i, (n, o)) in sides.iter().enumerate() {
        let [a, b] = &mut bufs;
        let (src, dst) = if i % 2 == 0 { (&*a, b) } else { (&*b, a) };
        src.clip_into(dst, n, *o, 4 + i as u8);
    }
    bufs[sides.len() % 2]
}

/// The side planes of a triangle face with unit normal `f`: for each edge
/// `v_i v_(i+1)`, the plane through it perpendicular to the face, its normal
/// pointing away from the opposite vertex.
pub(super) fn triangle_sides(v: &[crate::math::Point; 3], f: &Vector) -> [(Vector, Real); 3] {
    core::array::from_fn(|i| {
        let (p, q, r) = (&v[i], &v[(i + 1) % 3], &v[(i + 2) % 3]);
        let s = (q - p).cross(f);
        let s = if s.dot(&(r - p)) > 0.0 { -s } else { s };
        (s, s.dot(&p.coords))
    })
}
