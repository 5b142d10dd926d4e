//! Edge flags on a heightfield: the field's mesh gets each cell triangle's
//! flags, so its manifolds equal bit for bit those of a mesh built here from
//! the documented layout (vertices, the two halves of each cell, holes
//! skipped) with the same flags; flags given to the wrong triangles change
//! some manifolds (the mapping is what is tested); every edge `Auto` is no
//! flag at all; a list of the wrong length is a typed error.

mod common;

use std::sync::Arc;

use nalgebra::DMatrix;
use proxima_narrowphase::{ContactManifold, Isometry, Real, Vector};
use proxima_scene::{contact_manifolds, EdgeFlags, EdgeMode, HeightField, HeightFieldError, TriMesh, WorldShape};
use proxima_test_support::gen::uniform;
use rand::Rng;

/// The field's frame in the world: its `[-3, 3]^2` footprint over the
/// `[0, 6]^2` square of `common::shape_over_patch`.
fn field_pose() -> Isometry {
    Isometry::translation(3.0, 0.0, 3.0)
}

/// A rough `rows x cols` field over 6 x 6 with about one cell in ten a hole.
fn rough_field(rng: &mut impl Rng, rows: usize, cols: usize) -> HeightField {
    let heights = DMatrix::from_fn(rows, cols, |_, _| uniform(rng, 0.0, 0.5));
    let holes = DMatrix::from_fn(rows - 1, cols - 1, |_, _| rng.random_range(0..10) == 0);
    HeightField::try_with_holes(heights, Vector::new(6.0, 1.0, 6.0), &holes).unwrap()
}

/// One random mode per edge, each of the three equally likely.
fn random_flags(rng: &mut impl Rng, n: usize) -> Vec<EdgeFlags> {
    let mode = |rng: &mut dyn rand::RngCore| match rng.random_range(0..3) {
        0 => EdgeMode::Auto,
        1 => EdgeMode::Active,
        _ => EdgeMode::Internal,
    };
    (0..n).map(|_| EdgeFlags::new([mode(rng), mode(rng), mode(rng)])).collect()
}

/// The field's triangles as a mesh built from the type's documentation:
/// vertex `(i, j)` at `i cols + j`; cell `(i, j)` (no hole) gives half 0
/// `[p00, p10, p01]` then half 1 `[p10, p11, p01]`, carrying
/// `flags[2 (i (cols - 1) + j) + half]`.
fn documented_mesh(field: &HeightField, flags: &[EdgeFlags]) -> Arc<TriMesh> {
    let (rows, cols) = (field.rows(), field.cols());
    let vertices = (0..rows).flat_map(|i| (0..cols).map(move |j| (i, j))).map(|(i, j)| field.vertex(i, j)).collect();
    let (mut indices, mut mesh_flags) = (Vec::new(), Vec::new());
    for i in 0..rows - 1 {
        for j in 0..cols - 1 {
            if field.is_hole(i, j) {
                continue;
            }
            let p00 = (i * cols + j) as u32;
            let (p01, p10, p11) = (p00 + 1, p00 + cols as u32, p00 + cols as u32 + 1);
            indices.extend([[p00, p10, p01], [p10, p11, p01]]);
            let cell = i * (cols - 1) + j;
            mesh_flags.extend([flags[2 * cell], flags[2 * cell + 1]]);
        }
    }
    Arc::new(TriMesh::new(vertices, indices).unwrap().with_edge_flags(mesh_flags).unwrap())
}

/// The manifolds of `shape` (A) against `mesh` (B) at the field's pose.
fn manifolds(shape: &WorldShape, mesh: &Arc<TriMesh>, prediction: Real) -> Vec<ContactManifold> {
    let mut out = Vec::new();
    contact_manifolds(shape, &WorldShape::TriMesh(mesh.clone(), field_pose()), prediction, &mut out);
    out
}

#[test]
fn the_fields_mesh_carries_each_cell_triangles_flags() {
    let mut rng = proxima_test_support::rng(0x3A8_0101);
    let (mut touching, mut misplaced_differ, mut unflagged_differ) = (0, 0, 0);
    let mut cases = 0;
    for _ in 0..4 {
        let (rows, cols) = (rng.random_range(6..14), rng.random_range(6..14));
        let field = rough_field(&mut rng, rows, cols);
        let holes =
            (0..rows - 1).flat_map(|i| (0..cols - 1).map(move |j| (i, j))).filter(|&(i, j)| field.is_hole(i, j));
        assert!(holes.count() > 0, "the field has holes, which the mesh skips");
        let n = 2 * (rows - 1) * (cols - 1);
        let flags = random_flags(&mut rng, n);
        let flagged = field.clone().with_edge_flags(flags.clone()).unwrap();
        for i in 0..rows - 1 {
            for j in 0..cols - 1 {
                for half in 0..2 {
                    assert_eq!(flagged.edge_flags(i, j, half), flags[2 * (i * (cols - 1) + j) + half]);
                }
            }
        }
        let oracle = documented_mesh(&field, &flags);
        // The control: the same flags one triangle off.
        let mut shifted = flags.clone();
        shifted.rotate_left(1);
        let misplaced = field.clone().with_edge_flags(shifted).unwrap();
        for case in 0..1_500 {
            cases += 1;
            let shape = common::shape_over_patch(&mut rng, 1.2);
            let prediction = if case % 2 == 0 { 0.0 } else { 0.1 };
            let want = manifolds(&shape, &oracle, prediction);
            touching += usize::from(!want.is_empty());
            let got = manifolds(&shape, flagged.mesh(), prediction);
            // Bit for bit: `{:?}` prints each float's shortest exact form.
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "case {case}: {shape:?}");
            misplaced_differ += usize::from(manifolds(&shape, misplaced.mesh(), prediction) != want);
            unflagged_differ += usize::from(manifolds(&shape, field.mesh(), prediction) != want);
        }
    }
    println!("{touching} of {cases} touch; misplaced flags change {misplaced_differ}, no flags {unflagged_differ}");
    assert!(touching > cases / 5, "{touching} of {cases} cases touch");
    assert!(misplaced_differ > 50, "flags one triangle off changed only {misplaced_differ} of {cases} cases");
    assert!(unflagged_differ > 50, "the flags changed only {unflagged_differ} of {cases} cases");
}

#[test]
fn auto_flags_are_no_flags_and_the_count_is_checked() {
    let mut rng = proxima_test_support::rng(0x3A8_0102);
    let field = rough_field(&mut rng, 9, 7);
    let n = 2 * 8 * 6;
    let auto = field.clone().with_edge_flags(vec![EdgeFlags::AUTO; n]).unwrap();
    assert_eq!(field.edge_flags(3, 2, 1), EdgeFlags::AUTO, "a field without flags reports Auto");
    for case in 0..2_000 {
        let shape = common::shape_over_patch(&mut rng, 1.2);
        let prediction = if case % 2 == 0 { 0.0 } else { 0.1 };
        let want = manifolds(&shape, field.mesh(), prediction);
        let got = manifolds(&shape, auto.mesh(), prediction);
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "case {case}");
    }
    for wrong in [0, n - 1, n + 1, n / 2] {
        let rejected = field.clone().with_edge_flags(vec![EdgeFlags::ACTIVE; wrong]);
        assert_eq!(rejected.err(), Some(HeightFieldError::EdgeFlagCount { expected: n, got: wrong }));
    }
    // Materials and flags together: each reaches the mesh, in either order.
    let materials: Vec<u32> = (0..n as u32).collect();
    let flags = random_flags(&mut rng, n);
    let both = field.clone().with_materials(materials.clone()).unwrap().with_edge_flags(flags.clone()).unwrap();
    let other_order = field.clone().with_edge_flags(flags).unwrap().with_materials(materials).unwrap();
    for f in [&both, &other_order] {
        assert_eq!(f.mesh().edge_flags(), both.mesh().edge_flags());
        assert_eq!(f.mesh().materials(), both.mesh().materials());
        assert!(f.mesh().edge_flags().is_some() && f.mesh().materials().is_some());
    }
    let trimesh = both.to_trimesh().unwrap();
    assert_eq!(trimesh.edge_flags(), both.mesh().edge_flags(), "to_trimesh carries the flags");
}
