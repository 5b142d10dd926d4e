//! Rigid bodies for the solver example: mass properties of the collider
//! shapes, and the semi-implicit Euler integrator.

use proxima::narrowphase::{ConvexHull, Isometry, Matrix, Point, Real, Rotation, Vector};
use proxima::scene::{ColliderHandle, ColliderShape, Compound};

/// A rigid body whose centre of mass is its collider's origin (true of
/// boxes, spheres and capsules, which are symmetric about it; the scenes
/// build hulls and compounds about their centre of mass, see [`centred`]).
#[derive(Clone, Debug)]
pub struct Body {
    /// The collider this body moves.
    pub collider: ColliderHandle,
    /// Position of the centre of mass and orientation (world frame).
    pub pose: Isometry,
    /// Linear velocity of the centre of mass (world frame, m/s).
    pub linvel: Vector,
    /// Angular velocity (world frame, rad/s).
    pub angvel: Vector,
    /// `1 / mass`; zero for a static body.
    pub inv_mass: Real,
    /// Inverse inertia tensor about the centre of mass (body frame); zero
    /// for a static body.
    inv_inertia_local: Matrix,
    /// `R inv_inertia_local R^T`, refreshed by [`Body::update_inertia`].
    pub inv_inertia: Matrix,
    /// A round body (sphere, capsule): its contacts resist rolling.
    pub rolls: bool,
}

impl Body {
    /// A body that never moves: zero inverse mass and inertia.
    pub fn fixed(collider: ColliderHandle, pose: Isometry) -> Self {
        Self {
            collider,
            pose,
            linvel: Vector::zeros(),
            angvel: Vector::zeros(),
            inv_mass: 0.0,
            inv_inertia_local: Matrix::zeros(),
            inv_inertia: Matrix::zeros(),
            rolls: false,
        }
    }

    /// A moving body of uniform `density` filling `shape`.
    ///
    /// # Panics
    /// For a mesh or heightfield (no volume), a shape of zero volume, or
    /// one whose centre of mass is not its origin.
    pub fn dynamic(collider: ColliderHandle, pose: Isometry, shape: &ColliderShape, density: Real) -> Self {
        let props = MassProperties::of(shape, density);
        let inv_inertia = props.inertia.try_inverse().filter(|_| props.mass > 0.0);
        let inv_inertia = inv_inertia.expect("a dynamic body needs a volume");
        let size = shape.placed(&Isometry::identity()).expect("a valid shape").aabb().half_extents().amax();
        assert!(props.centre.coords.norm() <= 1e-4 * size, "the centre of mass must be the collider's origin");
        let rolls = matches!(shape, ColliderShape::Sphere { .. } | ColliderShape::Capsule { .. });
        let mut body =
            Self { inv_mass: 1.0 / props.mass, inv_inertia_local: inv_inertia, rolls, ..Self::fixed(collider, pose) };
        body.update_inertia();
        body
    }

    /// Whether the body moves.
    pub fn is_dynamic(&self) -> bool {
        self.inv_mass > 0.0
    }

    /// World inverse inertia `I^-1 = R I_body^-1 R^T` for the current
    /// orientation.
    pub fn update_inertia(&mut self) {
        let r = self.pose.rotation.to_rotation_matrix().into_inner();
        self.inv_inertia = r * self.inv_inertia_local * r.transpose();
    }

    /// Applies impulse `p` at offset `r`: `v += p / m`, `w += I^-1 (r x p)`.
    #[inline]
    pub fn apply_impulse(&mut self, r: &Vector, p: &Vector) {
        self.linvel += p * self.inv_mass;
        self.angvel += self.inv_inertia * r.cross(p);
    }

    /// `v += g h` (semi-implicit Euler, first half: velocities from forces).
    pub fn integrate_velocity(&mut self, gravity: &Vector, h: Real) {
        if self.is_dynamic() {
            self.linvel += gravity * h;
        }
    }

    /// `x += v h`, `q += h/2 (0, w) q` then renormalized (second half: positions
    /// from the new velocities). Gyroscopic torque is left out, as in Box2D.
    pub fn integrate_position(&mut self, h: Real) {
        if !self.is_dynamic() {
            return;
        }
        self.pose.translation.vector += self.linvel * h;
        let q = self.pose.rotation.into_inner();
        let w = proxima::nalgebra::Quaternion::from_imag(self.angvel * (0.5 * h));
        self.pose.rotation = Rotation::new_normalize(q + w * q);
        self.update_inertia();
    }
}

/// Mass, centre of mass and inertia tensor (about the centre of mass) of a
/// shape of uniform density, in the shape's frame.
#[derive(Clone, Copy, Debug)]
pub struct MassProperties {
    pub mass: Real,
    pub centre: Point,
    pub inertia: Matrix,
}

impl MassProperties {
    /// The mass properties of `shape` filled with `density`; zero for a
    /// mesh or a heightfield (no volume).
    ///
    /// - Box of half extents `e`: `m = 8 e_x e_y e_z rho`, `I_x = m (e_y^2 + e_z^2) / 3`.
    /// - Sphere: `m = 4/3 pi r^3 rho`, `I = 2/5 m r^2`.
    /// - Capsule (axis y, cylinder of height `h = 2 half_height` plus two
    ///   hemispheres of total mass `m_s`): `I_y = m_c r^2 / 2 + 2/5 m_s r^2`,
    ///   `I_x = I_z = m_c (h^2/12 + r^2/4) + m_s (2/5 r^2 + h^2/4 + 3/8 h r)`
    ///   (each hemisphere's own inertia moved to the capsule's centre by the
    ///   parallel-axis theorem; its centroid is `3/8 r` from its flat face).
    /// - Hull: exact, summed over tetrahedra (see [`hull`]).
    /// - Compound: the children's, summed about their common centre of mass
    ///   (see [`compound`]).
    pub fn of(shape: &ColliderShape, density: Real) -> Self {
        use std::f32::consts::PI;
        let centred = |mass: Real, moments: Vector| Self {
            mass,
            centre: Point::origin(),
            inertia: Matrix::from_diagonal(&moments),
        };
        match shape {
            ColliderShape::Cuboid { half_extents: e } => {
                let m = 8.0 * e.x * e.y * e.z * density;
                let s = e.component_mul(e);
                centred(m, Vector::new(s.y + s.z, s.x + s.z, s.x + s.y) * (m / 3.0))
            }
            ColliderShape::Sphere { radius: r } => {
                let m = 4.0 / 3.0 * PI * r * r * r * density;
                centred(m, Vector::repeat(0.4 * m * r * r))
            }
            ColliderShape::Capsule { half_height, radius: r } => {
                let h = 2.0 * half_height;
                let m_c = PI * r * r * h * density;
                let m_s = 4.0 / 3.0 * PI * r * r * r * density;
                let axial = m_c * r * r / 2.0 + 0.4 * m_s * r * r;
                let across = m_c * (h * h / 12.0 + r * r / 4.0) + m_s * (0.4 * r * r + h * h / 4.0 + 0.375 * h * r);
                centred(m_c + m_s, Vector::new(across, axial, across))
            }
            ColliderShape::ConvexHull(h) => hull(h, density),
            ColliderShape::Compound(c) => compound(c, density),
            _ => Self { mass: 0.0, centre: Point::origin(), inertia: Matrix::zeros() },
        }
    }
}

/// A hull's mass properties, exact: each face's fan of triangles `(a, b, c)`
/// (counter-clockwise from outside) and the hull's first vertex `o` form a
/// tetrahedron of signed volume `V = det [a b c] / 6` (offsets from `o`),
/// whose second moment about `o` is
/// `C = rho det [a b c] / 120 (a a^T + b b^T + c c^T + s s^T)` with
/// `s = a + b + c` (the unit tetrahedron's `C = (E + 1 1^T) / 120` under the
/// linear map `[a b c]`: Tonon, "Explicit exact formulas for the 3-D
/// tetrahedron inertia tensor", 2004). The sums, moved to the centre of
/// mass `d` (offset from `o`), give `C_c = C - m d d^T` and
/// `I = tr(C_c) E - C_c`.
fn hull(hull: &ConvexHull, density: Real) -> MassProperties {
    let o = hull.vertices()[0].coords;
    let at = |i: u32| hull.vertices()[i as usize].coords - o;
    let (mut volume, mut moment, mut second) = (0.0, Vector::zeros(), Matrix::zeros());
    for f in 0..hull.faces().len() {
        let lp = hull.face_vertices(f);
        let a = at(lp[0]);
        for k in 1..lp.len() - 1 {
            let (b, c) = (at(lp[k]), at(lp[k + 1]));
            let det = a.cross(&b).dot(&c);
            let s = a + b + c;
            volume += det / 6.0;
            moment += s * (det / 24.0);
            second += (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose()) * (det / 120.0);
        }
    }
    let d = moment / volume;
    let mass = volume * density;
    let c = second * density - d * d.transpose() * mass;
    MassProperties { mass, centre: Point::from(o + d), inertia: Matrix::identity() * c.trace() - c }
}

/// A compound's mass properties: with child `i` of mass `m_i`, centre `c_i`
/// and inertia `I_i` (its own frame), placed by `(R_i, t_i)`, the total mass
/// is `m = sum m_i`, the centre `c = sum m_i (R_i c_i + t_i) / m`, and the
/// inertia about `c` is `sum R_i I_i R_i^T + m_i (|d_i|^2 E - d_i d_i^T)`
/// with `d_i = R_i c_i + t_i - c` (parallel-axis theorem). Children that
/// overlap count their common volume twice.
fn compound(compound: &Compound, density: Real) -> MassProperties {
    let children: Vec<(MassProperties, &Isometry)> =
        compound.children().iter().map(|(pose, shape)| (MassProperties::of(shape, density), pose)).collect();
    let mass: Real = children.iter().map(|(p, _)| p.mass).sum();
    let weighted = children.iter().map(|(p, pose)| (*pose * p.centre).coords * p.mass).sum::<Vector>();
    let centre = Point::from(weighted / mass);
    let mut inertia = Matrix::zeros();
    for (p, pose) in &children {
        let r = pose.rotation.to_rotation_matrix().into_inner();
        let d = *pose * p.centre - centre;
        inertia += r * p.inertia * r.transpose() + (Matrix::identity() * d.norm_squared() - d * d.transpose()) * p.mass;
    }
    MassProperties { mass, centre, inertia }
}

/// A compound of `children` moved so that its centre of mass (uniform
/// density) is its origin: every child's pose shifted by minus the centre.
/// Returns the compound and the centre, in the children's frame.
pub fn centred(children: Vec<(Isometry, ColliderShape)>) -> (ColliderShape, Vector) {
    let raw = Compound::try_new(children).expect("valid children");
    let centre = compound(&raw, 1.0).centre.coords;
    let shifted = raw.children().iter().map(|(pose, shape)| {
        let mut pose = *pose;
        pose.translation.vector -= centre;
        (pose, shape.clone())
    });
    let shape = Compound::try_new(shifted.collect()).expect("valid children");
    (ColliderShape::Compound(std::sync::Arc::new(shape)), centre)
}
