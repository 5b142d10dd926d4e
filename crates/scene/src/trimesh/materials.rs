//! Per-triangle material ids of a mesh, and the triangle (so the material)
//! behind a point of a mesh's contact manifold.

use super::manifold::TRIANGLE_ID_SHIFT;
use super::TriMesh;
use crate::error::MeshError;

impl TriMesh {
    /// The mesh with a material id per triangle, `materials[t]` for triangle
    /// `t` in [`TriMesh::indices`] order; rejects a list whose length is not
    /// the number of triangles ([`MeshError::MaterialCount`]). Ray hits
    /// report it ([`TriangleHit::material`](crate::TriangleHit::material)),
    /// and a manifold point's material is
    /// [`TriMesh::material_of_point_id`].
    ///
    /// An id is a `u32`: what it means (an index into the user's table of
    /// friction and restitution, a surface sound, a packed set of tags) is
    /// the user's. The same width as a triangle index, so a material per
    /// triangle of the largest mesh fits, and 4 B a triangle beside the
    /// about 60 B the mesh already holds per triangle; a mesh without
    /// materials stores nothing and reports 0 for every triangle.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Point, Ray, Vector};
    /// let p = |x, y| Point::new(x, y, 0.0);
    /// let v = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)];
    /// let mesh = TriMesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    /// assert_eq!(mesh.material(1), 0);
    /// let mesh = mesh.with_materials(vec![7, 9]).unwrap();
    /// let hit = mesh.cast_ray_closest(&Ray::new(Point::new(0.25, 0.75, 1.0), -Vector::z(), 2.0)).unwrap();
    /// assert_eq!((hit.triangle.index, hit.triangle.material), (1, 9));
    /// assert_eq!(mesh.clone().with_materials(vec![1]).err(), Some(MeshError::MaterialCount { expected: 2, got: 1 }));
    /// ```
    pub fn with_materials(mut self, materials: Vec<u32>) -> Result<Self, MeshError> {
        let expected = self.indices.len();
        if materials.len() != expected {
            return Err(MeshError::MaterialCount { expected, got: materials.len() });
        }
        self.tree.materials = materials;
        Ok(self)
    }

    /// The material id of triangle `triangle` (see
    /// [`TriMesh::with_materials`]): 0 on a mesh without materials.
    ///
    /// # Panics
    /// When `triangle` is not below `indices().len()`.
    #[inline]
    pub fn material(&self, triangle: u32) -> u32 {
        let t = triangle as usize;
        assert!(t < self.indices.len(), "triangle {triangle} out of range");
        self.tree.materials.get(t).copied().unwrap_or(0)
    }

    /// The material ids, one per triangle in index order; `None` for a mesh
    /// without materials.
    pub fn materials(&self) -> Option<&[u32]> {
        (!self.tree.materials.is_empty()).then_some(&self.tree.materials[..])
    }

    /// The triangle of this mesh whose contact gave the manifold point `id`
    /// ([`ManifoldPoint::id`](proxima_narrowphase::ManifoldPoint::id)), for
    /// the manifolds of a convex shape against this mesh
    /// ([`contact_manifolds`](crate::contact_manifolds), the contact
    /// pipeline's manifolds, either order of the pair; a heightfield collider's
    /// manifolds are those of its [`HeightField::mesh`](crate::HeightField::mesh)).
    ///
    /// A point's id is its triangle's index shifted left by 11 bits, xor'ed
    /// with the narrowphase's id of the point on that triangle (below
    /// `2^11`): the triangle is `id >> 11`. `None` when that is no triangle of
    /// this mesh, or when the mesh has more than `2^21` triangles (the
    /// index's high bits are then lost). The points of two meshes' manifolds
    /// (mesh against mesh) carry a hash of the other mesh's triangle and name
    /// no triangle this way.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_scene as scene; }
    /// use std::sync::Arc;
    /// use proxima::scene::*;
    /// use proxima::narrowphase::{Isometry, Point, Sphere};
    /// let p = |x, z| Point::new(x, 0.0, z);
    /// let v = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)];
    /// let mesh = Arc::new(TriMesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap().with_materials(vec![3, 5]).unwrap());
    /// // A ball resting on triangle 1 (x < z).
    /// let ball = WorldShape::Sphere(Sphere::new(Point::new(0.2, 0.49, 0.7), 0.5));
    /// let mut out = Vec::new();
    /// contact_manifolds(&ball, &WorldShape::TriMesh(mesh.clone(), Isometry::identity()), 0.0, &mut out);
    /// let id = out[0].points()[0].id;
    /// assert_eq!(mesh.triangle_of_point_id(id), Some(1));
    /// assert_eq!(mesh.material_of_point_id(id), Some(5));
    /// ```
    #[must_use]
    pub fn triangle_of_point_id(&self, id: u32) -> Option<u32> {
        let t = id >> TRIANGLE_ID_SHIFT;
        let n = self.indices.len();
        (n <= 1 << (32 - TRIANGLE_ID_SHIFT) && (t as usize) < n).then_some(t)
    }

    /// The material of the triangle behind manifold point `id`:
    /// [`TriMesh::material`] of [`TriMesh::triangle_of_point_id`] (so 0 on a
    /// mesh without materials), `None` when the id names no triangle.
    #[must_use]
    pub fn material_of_point_id(&self, id: u32) -> Option<u32> {
        self.triangle_of_point_id(id).map(|t| self.material(t))
    }
}
