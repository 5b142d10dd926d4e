//! The fixed collider under the pile: the flat ground box, or a bumpy
//! triangle-mesh floor over the pile's footprint.

use std::str::FromStr;

/// Quads along each side of the mesh floor: `64 x 64` quads of two
/// triangles, 8,192 triangles.
pub const FLOOR_QUADS: usize = 64;
/// How far the mesh floor reaches past the pile's outermost centres on each
/// side, in metres.
pub const FLOOR_MARGIN: f32 = 10.0;
/// The largest `|height|` of the mesh floor's bump field ([`bump_height`]),
/// in metres: the sum of its three waves' amplitudes.
pub const BUMP_AMPLITUDE: f32 = 0.45;

/// The fixed collider under the pile (collider 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Floor {
    /// A flat box of 400 m x 400 m whose top face is `y = 0`, half-extents
    /// `(200, 0.5, 200)`, centred at `(0, -0.5, 0)`: the bench's ground.
    #[default]
    Cuboid,
    /// A bumpy triangle mesh ([`floor_mesh`]): a `64 x 64` grid of quads of
    /// two triangles each (8,192 triangles) whose heights follow
    /// [`bump_height`], under the identity pose. The bodies' lowest layer is
    /// raised by [`BUMP_AMPLITUDE`], so no body starts inside a bump.
    TriMesh,
}

impl Floor {
    /// How much higher the lowest layer of bodies starts over this floor
    /// than over the flat box, in metres.
    pub fn lift(self) -> f32 {
        match self {
            Self::Cuboid => 0.0,
            Self::TriMesh => BUMP_AMPLITUDE,
        }
    }
}

impl FromStr for Floor {
    type Err = String;

    /// `box` or `mesh`, as the examples take it (`floor=mesh`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "box" => Ok(Self::Cuboid),
            "mesh" => Ok(Self::TriMesh),
            _ => Err(format!("unknown floor {s:?}: box or mesh")),
        }
    }
}

/// The mesh floor's height at `(x, z)`, in metres: three plane waves,
///
/// `h = 0.2 sin(2 pi x / 7.3) sin(2 pi z / 6.1) + 0.15 sin(2 pi (x + z) / 11.7 + 1)
///    + 0.1 sin(2 pi (x - 2 z) / 17.9 + 2)`,
///
/// so `|h| <= 0.45` ([`BUMP_AMPLITUDE`]): hollows a few metres across, in
/// which rolling bodies settle.
#[must_use]
pub fn bump_height(x: f32, z: f32) -> f32 {
    use std::f32::consts::TAU;
    0.2 * (TAU * x / 7.3).sin() * (TAU * z / 6.1).sin()
        + 0.15 * (TAU * (x + z) / 11.7 + 1.0).sin()
        + 0.1 * (TAU * (x - 2.0 * z) / 17.9 + 2.0).sin()
}

/// The mesh floor of a pile whose outermost centres are `half_width` from
/// the origin along x and z: vertices on a regular `65 x 65` grid over
/// `[-(half_width + FLOOR_MARGIN), half_width + FLOOR_MARGIN]` along x and z,
/// at height [`bump_height`], vertex `(i, j)` (`i` along x, `j` along z) at
/// index `65 j + i`; each quad split along its diagonal from `(i, j)` to
/// `(i + 1, j + 1)` into two triangles whose vertices turn counter-clockwise
/// seen from above (their normals `(b - a) x (c - a)` point to `+y`).
#[must_use]
pub fn floor_mesh(half_width: f32) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let n = FLOOR_QUADS;
    let half = half_width + FLOOR_MARGIN;
    let cell = 2.0 * half / n as f32;
    let mut vertices = Vec::with_capacity((n + 1) * (n + 1));
    for j in 0..=n {
        let z = j as f32 * cell - half;
        for i in 0..=n {
            let x = i as f32 * cell - half;
            vertices.push([x, bump_height(x, z), z]);
        }
    }
    let index = |i: usize, j: usize| (j * (n + 1) + i) as u32;
    let mut indices = Vec::with_capacity(2 * n * n);
    for j in 0..n {
        for i in 0..n {
            let (v00, v10, v01, v11) = (index(i, j), index(i + 1, j), index(i, j + 1), index(i + 1, j + 1));
            indices.push([v00, v01, v11]);
            indices.push([v00, v11, v10]);
        }
    }
    (vertices, indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mesh_floor_covers_the_pile_with_bumps_within_the_amplitude() {
        let half_width = 23.25;
        let (vertices, indices) = floor_mesh(half_width);
        assert_eq!(vertices.len(), 65 * 65);
        assert_eq!(indices.len(), 8192);
        let reach = half_width + FLOOR_MARGIN;
        let (mut low, mut high) = (f32::INFINITY, f32::NEG_INFINITY);
        for &[x, y, z] in &vertices {
            assert!(x.abs() <= reach * (1.0 + 1e-6) && z.abs() <= reach * (1.0 + 1e-6), "({x}, {z})");
            assert!(y.abs() <= BUMP_AMPLITUDE, "{y}");
            (low, high) = (low.min(y), high.max(y));
        }
        assert!(vertices.iter().any(|v| v[0] == -reach) && vertices.iter().any(|v| (v[0] - reach).abs() < 1e-4));
        assert!(high - low > BUMP_AMPLITUDE, "a bumpy floor: heights from {low} to {high}");
        // Every triangle faces up: (b - a) x (c - a) has a positive y.
        for t in &indices {
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            let (u, v) = ([b[0] - a[0], b[2] - a[2]], [c[0] - a[0], c[2] - a[2]]);
            assert!(u[1] * v[0] - u[0] * v[1] > 0.0, "{t:?}");
        }
    }

    #[test]
    fn floors_parse_from_their_argument() {
        assert_eq!("box".parse(), Ok(Floor::Cuboid));
        assert_eq!("mesh".parse(), Ok(Floor::TriMesh));
        assert!("heightfield".parse::<Floor>().is_err());
        assert_eq!(Floor::default(), Floor::Cuboid);
    }
}
