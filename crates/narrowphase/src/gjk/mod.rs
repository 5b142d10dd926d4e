//! Generic convex queries: any pair of shapes with a [`SupportMap`].
//!
//! - [`distance_convex`]: GJK with a signed-volume simplex solver
//!   (`simplex.rs`), the distance and a closest pair;
//! - [`intersects_convex`]: GJK stopped at the first separating plane;
//! - [`contact_convex`]: EPA on GJK's final simplex for overlapping shapes,
//!   GJK's closest pair within a prediction distance;
//! - [`cast_shape_convex`]: a linear shape cast by conservative advancement.
//!
//! Rounded shapes (spheres, capsules) run on their cores (a point, a
//! segment) and add their radii, as the closed-form queries do. The
//! closed-form `distance_*` / `contact_*` functions are exact for the
//! built-in pairs and are the reference these are tested against; the
//! generic ones serve shapes without a closed form (hulls, a user's own
//! shapes) and mixed pairs.

mod cast;
mod distance;
mod epa;
mod simplex;
mod support;

pub use cast::cast_shape_convex;
pub use distance::{convex_iterations, distance_convex, intersects_convex};
pub use epa::contact_convex;
pub use support::SupportMap;
