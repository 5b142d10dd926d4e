//! proxima's narrowphase: shapes and the exact tests between them.
//!
//! - shapes: [`Aabb`], [`Sphere`], [`Obb`], [`Capsule`], [`Triangle`], [`Plane`],
//!   each validated at construction (`try_new` returns a [`ShapeError`]);
//! - `closest_point_*` / `distance_*`: point queries;
//! - `intersects_*`: boolean overlap, inclusive (touching shapes intersect);
//! - `contact_*`: [`Contact`] with a unit normal from A to B and `depth >= 0`;
//! - `cast_ray_*`: [`Ray`] casts returning a [`RayHit`];
//! - `cast_sphere_*`: swept spheres (continuous collision) returning a [`SweepHit`].
//!
//! ```
//! use proxima_narrowphase::*;
//! let a = Sphere::new(Point::origin(), 1.0);
//! let b = Obb::new(Point::new(1.5, 0.0, 0.0), Rotation::identity(), Vector::new(1.0, 1.0, 1.0));
//! assert!(intersects_sphere_obb(&a, &b));
//! let c = contact_sphere_obb(&a, &b).unwrap();
//! assert!((c.depth - 0.5).abs() < 1e-6);
//! ```
#![deny(missing_docs)]

pub mod cast;
pub mod closest;
pub mod contact;
mod error;
#[cfg(feature = "glam")]
pub mod glam_convert;
pub mod intersect;
pub mod math;
pub mod shape;
#[cfg(feature = "serde")]
mod validated_serde;

pub use cast::*;
pub use closest::*;
pub use contact::*;
pub use error::ShapeError;
pub use intersect::*;
pub use math::{Isometry, Matrix, Point, Real, Rotation, UnitVector, Vector, MAX_COORDINATE};
pub use shape::*;
