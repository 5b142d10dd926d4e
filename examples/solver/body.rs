//! Rigid bodies for the solver example: mass properties of the collider
//! shapes, and the semi-implicit Euler integrator.

use proxima::narrowphase::{Isometry, Matrix, Real, Rotation, Vector};
use proxima::scene::{ColliderHandle, ColliderShape};

/// A rigid body whose centre of mass is its collider's origin (true of
/// boxes, spheres and capsules, which are symmetric about it).
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
    /// Inverse principal moments of inertia (body frame); zero for a static body.
    inv_inertia_local: Vector,
    /// `R diag(inv_inertia_local) R^T`, refreshed by [`Body::update_inertia`].
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
            inv_inertia_local: Vector::zeros(),
            inv_inertia: Matrix::zeros(),
            rolls: false,
        }
    }

    /// A moving body of uniform `density` filling `shape`.
    ///
    /// # Panics
    /// For a mesh (it has no volume) or a shape of zero volume.
    pub fn dynamic(collider: ColliderHandle, pose: Isometry, shape: &ColliderShape, density: Real) -> Self {
        let (mass, inertia) = mass_properties(shape, density);
        assert!(mass > 0.0 && inertia.min() > 0.0, "a dynamic body needs a volume");
        let rolls = matches!(shape, ColliderShape::Sphere { .. } | ColliderShape::Capsule { .. });
        let mut body = Self {
            inv_mass: 1.0 / mass,
            inv_inertia_local: inertia.map(|i| 1.0 / i),
            rolls,
            ..Self::fixed(collider, pose)
        };
        body.update_inertia();
        body
    }

    /// Whether the body moves.
    pub fn is_dynamic(&self) -> bool {
        self.inv_mass > 0.0
    }

    /// World inverse inertia `I^-1 = R diag(1/I_body) R^T` for the current
    /// orientation.
    pub fn update_inertia(&mut self) {
        let r = self.pose.rotation.to_rotation_matrix().into_inner();
        self.inv_inertia = r * Matrix::from_diagonal(&self.inv_inertia_local) * r.transpose();
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

/// Mass and principal moments of inertia (about the centre of mass, body
/// axes) of `shape` filled with `density`.
///
/// - Box of half extents `e`: `m = 8 e_x e_y e_z rho`, `I_x = m (e_y^2 + e_z^2) / 3`.
/// - Sphere: `m = 4/3 pi r^3 rho`, `I = 2/5 m r^2`.
/// - Capsule (axis y, cylinder of height `h = 2 half_height` plus two
///   hemispheres of total mass `m_s`): `I_y = m_c r^2 / 2 + 2/5 m_s r^2`,
///   `I_x = I_z = m_c (h^2/12 + r^2/4) + m_s (2/5 r^2 + h^2/4 + 3/8 h r)`
///   (each hemisphere's own inertia moved to the capsule's centre by the
///   parallel-axis theorem; its centroid is `3/8 r` from its flat face).
fn mass_properties(shape: &ColliderShape, density: Real) -> (Real, Vector) {
    use std::f32::consts::PI;
    match shape {
        ColliderShape::Cuboid { half_extents: e } => {
            let m = 8.0 * e.x * e.y * e.z * density;
            let s = e.component_mul(e);
            (m, Vector::new(s.y + s.z, s.x + s.z, s.x + s.y) * (m / 3.0))
        }
        ColliderShape::Sphere { radius: r } => {
            let m = 4.0 / 3.0 * PI * r * r * r * density;
            (m, Vector::repeat(0.4 * m * r * r))
        }
        ColliderShape::Capsule { half_height, radius: r } => {
            let h = 2.0 * half_height;
            let m_c = PI * r * r * h * density;
            let m_s = 4.0 / 3.0 * PI * r * r * r * density;
            let axial = m_c * r * r / 2.0 + 0.4 * m_s * r * r;
            let across = m_c * (h * h / 12.0 + r * r / 4.0) + m_s * (0.4 * r * r + h * h / 4.0 + 0.375 * h * r);
            (m_c + m_s, Vector::new(across, axial, across))
        }
        // A hull: its volume's mass, and the inertia of its bounding box
        // scaled to that mass (exact for a box; a close model for the
        // compact hulls of the scenes, whose centroid is the origin).
        ColliderShape::ConvexHull(hull) => {
            let m = hull.volume() * density;
            let e = hull.aabb().half_extents();
            let s = e.component_mul(&e);
            (m, Vector::new(s.y + s.z, s.x + s.z, s.x + s.y) * (m / 3.0))
        }
        _ => (0.0, Vector::zeros()),
    }
}
