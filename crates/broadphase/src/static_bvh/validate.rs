//! `validate()`: walks the whole tree, checks its invariants, measures it.

use super::wide::{Lane, WIDTH};
use super::StaticBvh;
use crate::broadphase::{TreeStats, ValidationError};

fn fail<T>(msg: String) -> Result<T, ValidationError> {
    Err(ValidationError(msg))
}

impl StaticBvh {
    /// Checks, from the root down:
    /// - every node is reached exactly once, each child after its parent;
    /// - lanes `0..len` hold valid boxes, the others are padded; every node
    ///   but a one-leaf root has at least 2 lanes;
    /// - every lane's box contains its child node's lanes, or its leaf's boxes;
    /// - leaves hold `1..=max_leaf_size` boxes, every leaf slot is in exactly
    ///   one leaf, and the ids are a permutation of `0..len`;
    /// - each inner binary node's lane mask is a subset of the used lanes.
    ///
    /// [`TreeStats::sah_cost`] is the SAH cost of the **binary** tree the
    /// build produced (each wide node is its binary root plus the inner
    /// binary nodes it collapsed, whose boxes are the unions of their lanes),
    /// so it compares with binary trees such as parry's:
    /// `(sum of internal areas + sum of leaf area * leaf size) / root area`
    /// (`C_trav = C_isect = 1`; 0 when the root has no area). `height` counts
    /// wide nodes on the longest root-to-leaf path; `nodes` the wide nodes.
    pub(super) fn validate_impl(&self) -> Result<TreeStats, ValidationError> {
        let n = self.prim_ids.len();
        if self.prim_boxes.len() != n {
            return fail(format!("{} leaf boxes for {n} ids", self.prim_boxes.len()));
        }
        let mut id_seen = vec![false; n];
        for (slot, &id) in self.prim_ids.iter().enumerate() {
            if id as usize >= n || std::mem::replace(&mut id_seen[id as usize], true) {
                return fail(format!("slot {slot}: id {id} out of range or repeated"));
            }
            if !self.prim_boxes[slot].is_valid() {
                return fail(format!("slot {slot}: invalid box"));
            }
        }
        if self.nodes.is_empty() {
            return if n == 0 { Ok(TreeStats::default()) } else { fail(format!("no nodes for {n} boxes")) };
        }
        let root_area = f64::from(self.nodes[0].own_box().map_or(0.0, |b| b.surface_area()));
        let mut node_seen = vec![false; self.nodes.len()];
        let mut slot_seen = vec![false; n];
        let (mut area_sum, mut height) = (0.0f64, 0usize);
        let mut stack = vec![(0u32, 1usize)];
        while let Some((index, depth)) = stack.pop() {
            let i = index as usize;
            if std::mem::replace(&mut node_seen[i], true) {
                return fail(format!("node {i} reached twice"));
            }
            let node = &self.nodes[i];
            let len = usize::from(node.len);
            let one_leaf_root = i == 0 && len == 1 && node.count[0] > 0;
            if !(2..=WIDTH).contains(&len) && !one_leaf_root {
                return fail(format!("node {i}: {len} lanes"));
            }
            for lane in len..WIDTH {
                if node.bounds.get(lane).is_some() {
                    return fail(format!("node {i}: unused lane {lane} not padded"));
                }
            }
            let Some(own) = node.own_box() else { return fail(format!("node {i}: no valid lane")) };
            if !one_leaf_root {
                area_sum += f64::from(own.surface_area());
            }
            for (k, &mask) in node.inner.iter().enumerate() {
                if mask == 0 {
                    continue;
                }
                if u32::from(mask) & !node.used_mask() != 0 || mask.count_ones() < 2 {
                    return fail(format!("node {i}: inner node {k} has lane mask {mask:#b}"));
                }
                area_sum += f64::from(node.bounds.union(u32::from(mask)).map_or(0.0, |b| b.surface_area()));
            }
            for lane in 0..len {
                let Some(lane_box) = node.bounds.get(lane) else {
                    return fail(format!("node {i}: lane {lane} holds no valid box"));
                };
                match node.lane(lane) {
                    Lane::Node(child) => {
                        let c = child as usize;
                        if c <= i || c >= self.nodes.len() {
                            return fail(format!("node {i} lane {lane}: child {c} out of order or range"));
                        }
                        match self.nodes[c].own_box() {
                            Some(b) if lane_box.contains_aabb(&b) => {}
                            _ => return fail(format!("node {i} lane {lane}: does not contain node {c}")),
                        }
                        stack.push((child, depth + 1));
                    }
                    Lane::Leaf { first, count } => {
                        let (first, count) = (first as usize, count as usize);
                        if count > self.options.max_leaf_size.clamp(1, usize::from(u8::MAX)) || first + count > n {
                            return fail(format!("node {i} lane {lane}: leaf {first}+{count}"));
                        }
                        let seen = &mut slot_seen[first..first + count];
                        let boxes = &self.prim_boxes[first..first + count];
                        for (k, (seen, aabb)) in seen.iter_mut().zip(boxes).enumerate() {
                            if std::mem::replace(seen, true) {
                                return fail(format!("slot {} in two leaves", first + k));
                            }
                            if !lane_box.contains_aabb(aabb) {
                                return fail(format!("node {i} lane {lane}: does not contain slot {}", first + k));
                            }
                        }
                        area_sum += f64::from(lane_box.surface_area()) * count as f64;
                        height = height.max(depth);
                    }
                }
            }
        }
        if let Some(i) = node_seen.iter().position(|&s| !s) {
            return fail(format!("node {i} unreachable"));
        }
        if let Some(slot) = slot_seen.iter().position(|&s| !s) {
            return fail(format!("slot {slot} in no leaf"));
        }
        let sah_cost = if root_area > 0.0 { area_sum / root_area } else { 0.0 };
        Ok(TreeStats { leaves: n, nodes: self.nodes.len(), height, sah_cost })
    }
}
