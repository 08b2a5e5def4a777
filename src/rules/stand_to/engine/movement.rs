//! Moving: paces, rough ground, obstacles, mounts, the charge, going prone.

use super::*;

impl StandToRules {
    pub(super) fn check_move(
        &self,
        state: &GameState,
        id: FigureId,
        path: &[Point2<f64>],
        pace: Pace,
        mount_level: Option<u8>,
    ) -> Result<MovePlan, RuleError> {
        self.require_phase(state, "move")?;
        let f = figure(state, id)?;
        Self::require_own_turn(state, f)?;
        Self::require_able(state, f)?;
        self.check_move_allowed(state, f, path, pace)?;
        let kind = Self::side_kind(state, f);
        let mv = &self.data.movement;
        let mut points = vec![f.placement.center_in_table];
        points.extend_from_slice(path);
        let scale = state.scale.table_in_per_rule_in();
        let (length_rule, rough_rule, obstacle_at) = Self::path_in_rule(state, f, &points);
        let loss = match kind {
            SideKind::European => mv.rough_loss_european,
            SideKind::Native => mv.rough_loss_native,
        };
        // An inch of rough ground uses 1/(1 - loss) inches of the allowance.
        let cost_rule = length_rule - rough_rule + rough_rule / (1.0 - loss).max(f64::EPSILON);
        let sigma_rule = f.placement.sigma_in * std::f64::consts::SQRT_2 / scale;
        let cost = Measured::new(cost_rule, sigma_rule);
        let last = *points.last().unwrap_or(&f.placement.center_in_table);
        if let Some(plan) = self.obstacle_move(state, f, (length_rule, rough_rule), cost, last)? {
            return Ok(plan);
        }
        let (min_in, max_in, level) =
            self.move_limits(f, kind, pace, mount_level, &points, scale)?;
        let end = obstacle_at.unwrap_or(last);
        if !cost.at_most(max_in).value {
            return Err(refuse(
                RefusalKind::TooFar,
                format!(
                    "{} may move {max_in} in at this pace; the path costs {:.1} in",
                    f.name, cost.value_in
                ),
            )
            .by(f.id));
        }
        let contact = self.contacts_enemy_at(state, f, end);
        if obstacle_at.is_none()
            && cost_rule < min_in
            && !contact
            && !Measured::new(cost_rule, sigma_rule).near(min_in)
        {
            return Err(refuse(
                RefusalKind::TooFar,
                format!("at this speed a mount must move at least {min_in} in"),
            ));
        }
        Ok(MovePlan {
            cost,
            limit_in: max_in,
            rough: rough_rule > 0.0,
            end,
            stage: obstacle_at.map(|_| ObstacleStage::Reached { turn: state.turn }),
            level,
            contact,
        })
    }

    /// A figure at an obstacle: "The next turn, the figure crosses the
    /// obstacle; place it on the opposite side but still in contact. The
    /// turn after that, the figure can move away normally." The plan of
    /// the crossing, a refusal, or None when no obstacle holds him.
    fn obstacle_move(
        &self,
        state: &GameState,
        f: &Figure,
        (length_rule, rough_rule): (f64, f64),
        cost: Measured,
        last: Point2<f64>,
    ) -> Result<Option<MovePlan>, RuleError> {
        match status::st(f).obstacle {
            ObstacleStage::Reached { turn } if turn >= state.turn => Err(refuse(
                RefusalKind::Movement,
                format!("{} stopped at an obstacle this turn", f.name),
            )
            .by(f.id)),
            ObstacleStage::Reached { .. } => {
                if length_rule > OBSTACLE_CROSS_MAX_IN {
                    return Err(refuse(
                        RefusalKind::Movement,
                        "crossing an obstacle: place the figure on the far side, still in contact",
                    ));
                }
                Ok(Some(MovePlan {
                    cost,
                    limit_in: OBSTACLE_CROSS_MAX_IN,
                    rough: rough_rule > 0.0,
                    end: last,
                    stage: Some(ObstacleStage::Crossed { turn: state.turn }),
                    level: None,
                    contact: self.contacts_enemy_at(state, f, last),
                }))
            }
            ObstacleStage::Crossed { turn } if turn >= state.turn => Err(refuse(
                RefusalKind::Movement,
                format!("{} crossed an obstacle this turn", f.name),
            )
            .by(f.id)),
            _ => Ok(None),
        }
    }

    /// Would the figure, standing at `end`, be within the melee inch of an
    /// active enemy?
    pub(super) fn contacts_enemy_at(
        &self,
        state: &GameState,
        f: &Figure,
        end: Point2<f64>,
    ) -> bool {
        let p = Placement {
            center_in_table: end,
            ..f.placement
        };
        state.figures.iter().any(|o| {
            o.side != f.side
                && o.active()
                && state
                    .scale
                    .rule_from_table(geometry::range_in(
                        &p,
                        &o.placement,
                        self.data.measure.melee,
                    ))
                    .value_in
                    <= self.data.melee.engagement_in
        })
    }

    /// The checks of a move that do not depend on its length: a path on
    /// the table, no move out of melee but an evade, a fanatic's forced
    /// charge, who may charge.
    pub(super) fn check_move_allowed(
        &self,
        state: &GameState,
        f: &Figure,
        path: &[Point2<f64>],
        pace: Pace,
    ) -> Result<(), RuleError> {
        if path.is_empty() {
            return Err(refuse(
                RefusalKind::Malformed,
                "a move needs at least one point",
            ));
        }
        if let Some(p) = path.iter().find(|p| !state.on_table(**p)) {
            return Err(refuse(
                RefusalKind::OffTable,
                format!("({:.1}, {:.1}) is off the table", p.x, p.y),
            ));
        }
        if let Some(status::MountHeld::Peg { turns_left }) = status::st(f).mount_held
            && turns_left > 0
        {
            return Err(refuse(
                RefusalKind::Movement,
                format!(
                    "{} is driving a peg for his mount: {turns_left} more turn(s) (drive-peg)",
                    f.name
                ),
            )
            .by(f.id));
        }
        let engaged = !self.engaged_with(state, f).is_empty();
        if engaged && pace != Pace::Evade {
            return Err(refuse(
                RefusalKind::Engaged,
                format!(
                    "{} is engaged in melee: evading is the only movement allowed",
                    f.name
                ),
            )
            .by(f.id));
        }
        if !engaged && let Some(target) = self.forced_charge_target(state, f) {
            let t = figure(state, target)?;
            let before = (t.placement.center_in_table - f.placement.center_in_table).norm();
            let end = path.last().copied().unwrap_or(f.placement.center_in_table);
            let after = (t.placement.center_in_table - end).norm();
            if pace != Pace::Charge || after >= before {
                return Err(refuse(
                    RefusalKind::NoOrder,
                    format!(
                        "{} is a fanatic: he must charge {}, the closest enemy he sees",
                        f.name, t.name
                    ),
                )
                .by(f.id));
            }
        }
        let kind = Self::side_kind(state, f);
        let mv = &self.data.movement;
        if pace == Pace::Charge {
            match kind {
                SideKind::European
                    if status::st(f).charge_turns_used >= mv.european_charge_turns =>
                {
                    return Err(refuse(
                        RefusalKind::AlreadyActed,
                        format!(
                            "Europeans charge at most {} turns a game; {} has used them",
                            mv.european_charge_turns, f.name
                        ),
                    ));
                }
                SideKind::Native => {
                    let sees_enemy = state.figures.iter().any(|o| {
                        o.side != f.side
                            && o.alive()
                            && !o.concealed
                            && self.sight(state, &f.placement, &o.placement).clear.value
                    });
                    if !sees_enemy {
                        return Err(refuse(
                            RefusalKind::NoOrder,
                            "natives charge only when closing with a seen enemy",
                        ));
                    }
                }
                SideKind::European => {}
            }
        }
        Ok(())
    }

    /// The path's length and its length through rough ground, rule inches,
    /// and where it first meets an obstacle (table inches).
    pub(super) fn path_in_rule(
        state: &GameState,
        f: &Figure,
        points: &[Point2<f64>],
    ) -> (f64, f64, Option<Point2<f64>>) {
        let scale = state.scale.table_in_per_rule_in();
        let mut length_rule = 0.0;
        let mut rough_rule = 0.0;
        let mut obstacle_at: Option<Point2<f64>> = None;
        for w in points.windows(2) {
            let (a, b) = (w[0], w[1]);
            length_rule += (b - a).norm() / scale;
            for area in &state.terrain {
                if area.is(TerrainKind::Rough) {
                    rough_rule += length_inside_in(a, b, &area.polygon_in) / scale;
                }
                if area.is(TerrainKind::Obstacle)
                    && obstacle_at.is_none()
                    && status::st(f).obstacle == ObstacleStage::Clear
                    && !geometry::point_in_polygon(&area.polygon_in, a)
                    && geometry::segment_crosses(a, b, &area.polygon_in)
                {
                    obstacle_at = Some(first_contact(a, b, &area.polygon_in));
                }
            }
        }
        (length_rule, rough_rule, obstacle_at)
    }

    /// The least and most a move may cost at this pace (a rider: at his
    /// mount's new speed, rule inches), and the mount's new speed level.
    pub(super) fn move_limits(
        &self,
        f: &Figure,
        kind: SideKind,
        pace: Pace,
        mount_level: Option<u8>,
        points: &[Point2<f64>],
        scale: f64,
    ) -> Result<(f64, f64, Option<u8>), RuleError> {
        let mv = &self.data.movement;
        let mut level = None;
        if let Some(asked) = mount_level.filter(|_| !f.mounted()) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} is on foot: a mount speed (mount_level {asked}) is for riders; leave it out",
                    f.name
                ),
            )
            .by(f.id));
        }
        let (min_in, max_in) = if f.mounted() {
            let old = f.mount_level.unwrap_or(0);
            let new = mount_level.unwrap_or(old);
            let m = &self.data.mount;
            if u32::from(new) > u32::from(old) + m.up_levels
                || u32::from(new) + m.down_levels < u32::from(old)
            {
                return Err(refuse(
                    RefusalKind::Movement,
                    format!(
                        "a mount goes up {} speed and down {} a turn",
                        m.up_levels, m.down_levels
                    ),
                ));
            }
            let speed = m.speed.get(usize::from(new)).ok_or(RuleError::Unknown {
                what: "mount speed",
                name: new.to_string(),
            })?;
            if speed.name == "gallop" {
                check_gallop_turns(points, m.gallop_turn_after_in * scale, m.gallop_turn_deg)?;
            }
            level = Some(new);
            (speed.min_in, speed.max_in)
        } else {
            let rates = match kind {
                SideKind::European => &mv.european,
                SideKind::Native => &mv.native,
            };
            let max = match pace {
                Pace::Stationary => 0.0,
                Pace::Crawl => rates.crawl,
                Pace::Walk => rates.walk,
                Pace::Doubletime => rates.doubletime,
                Pace::Charge => rates.charge,
                Pace::Evade => rates.evade,
            };
            (0.0, max)
        };
        Ok((min_in, max_in, level))
    }

    /// The `Move` command (see [`Action::Move`]).
    pub(super) fn resolve_move(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        action: &Action,
    ) -> Result<(), RuleError> {
        let Action::Move {
            figure: id,
            path_in,
            facing_deg,
            pace,
            mount_level,
        } = action
        else {
            return Ok(());
        };
        let plan = self.check_move(state, *id, path_in, *pace, *mount_level)?;
        let f = figure(state, *id)?;
        sc.measured("move cost", plan.cost, &plan.cost.at_most(plan.limit_in));
        if let Some(level) = plan.level
            && Some(level) != f.mount_level
        {
            sc.push(Event::MountSpeed { figure: *id, level });
        }
        if *pace == Pace::Charge && Self::side_kind(state, f) == SideKind::European {
            sc.push(Event::StandTo(StandToEvent::ChargeTurnUsed { figure: *id }));
        }
        if *pace == Pace::Charge
            && status::st(f).charging.is_none()
            && let Some(target) = self.forced_charge_target(state, f)
        {
            let name = figure(state, target)?.name.clone();
            sc.note(format!(
                "{} charges {name}: from now on he reacts to nothing else",
                f.name
            ));
            sc.push(Event::StandTo(StandToEvent::FanaticCharging {
                figure: *id,
                target: name,
            }));
        }
        let distance_in = (plan.end - f.placement.center_in_table).norm();
        sc.push(Event::Moved {
            figure: *id,
            to_in: plan.end,
            facing_deg: geometry::normalize_deg(*facing_deg),
            pace: *pace,
            distance_in,
            through_rough: plan.rough,
        });
        match plan.stage {
            Some(stage) => {
                if matches!(stage, ObstacleStage::Reached { .. }) {
                    sc.note(format!(
                        "{} stops at the obstacle; he crosses next turn",
                        f.name
                    ));
                }
                sc.push(Event::StandTo(StandToEvent::ObstacleStage {
                    figure: *id,
                    stage,
                }));
            }
            None if status::st(f).obstacle != ObstacleStage::Clear => {
                sc.push(Event::StandTo(StandToEvent::ObstacleStage {
                    figure: *id,
                    stage: ObstacleStage::Clear,
                }));
            }
            None => {}
        }
        self.after_move(sc, *id, *pace, plan.contact);
        Ok(())
    }

    /// What follows a move: "A figure gets an immediate hand-to-hand attack
    /// when it charges to within one inch of an enemy figure", and "A
    /// figure in the open ... is automatically seen by every other figure
    /// with a clear line of sight" (a concealed figure who leaves cover
    /// with an enemy watching is placed on the table).
    fn after_move(&self, sc: &mut Scratch, id: FigureId, pace: Pace, contact: bool) {
        let Some(f) = sc.state.figure(id).cloned() else {
            return;
        };
        if pace == Pace::Charge && contact {
            sc.note(format!(
                "{} charges to within an inch of the enemy: his immediate hand-to-hand attack now (melee in this move phase)",
                f.name
            ));
            sc.push(Event::StandTo(StandToEvent::ChargedIntoContact {
                figure: id,
                turn: sc.state.turn,
            }));
        }
        if f.concealed && !Self::in_cover_area(&sc.state, f.placement.center_in_table) {
            let seen_by = sc
                .state
                .figures
                .iter()
                .filter(|o| o.side != f.side && o.active())
                .find(|o| {
                    self.sight(&sc.state, &o.placement, &f.placement)
                        .clear
                        .value
                })
                .map(|o| o.name.clone());
            if let Some(by) = seen_by {
                sc.note(format!(
                    "{} enters the open and is seen by {by}: place him on the table",
                    f.name
                ));
                sc.push(Event::StandTo(StandToEvent::Spotted { figure: id }));
            }
        }
    }

    /// The `Prone` command (see [`Action::Prone`]).
    /// Can the figure lie down or stand up? Not a charging fanatic.
    pub(super) fn check_prone(&self, state: &GameState, id: FigureId) -> Result<(), RuleError> {
        let f = figure(state, id)?;
        Self::require_own_turn(state, f)?;
        if self.charging_fanatic(state, f) {
            return Err(refuse(
                RefusalKind::NoOrder,
                format!(
                    "{} is a charging fanatic: he reacts to nothing else",
                    f.name
                ),
            )
            .by(f.id));
        }
        Ok(())
    }

    /// The `Prone` command (see [`Action::Prone`]).
    pub(super) fn resolve_prone(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        id: FigureId,
        prone: bool,
    ) -> Result<(), RuleError> {
        self.check_prone(state, id)?;
        sc.push(Event::StandTo(StandToEvent::Prone { figure: id, prone }));
        Ok(())
    }
}

/// What a legal move does.
#[derive(Debug, Clone)]
pub(super) struct MovePlan {
    cost: Measured,
    /// The most the move may cost, rule inches.
    limit_in: f64,
    rough: bool,
    end: Point2<f64>,
    stage: Option<ObstacleStage>,
    level: Option<u8>,
    /// The move ends within the melee inch of an enemy.
    contact: bool,
}

/// The point where segment a-b first meets the polygon.
pub(super) fn first_contact(a: Point2<f64>, b: Point2<f64>, poly: &[Point2<f64>]) -> Point2<f64> {
    let d = b - a;
    let mut best = 1.0_f64;
    for i in 0..poly.len() {
        let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
        let e = q - p;
        let denom = d.perp(&e);
        if denom.abs() <= f64::EPSILON {
            continue;
        }
        let t = (p - a).perp(&e) / denom;
        let u = (p - a).perp(&d) / denom;
        if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u) {
            best = best.min(t);
        }
    }
    a + d * best
}

/// A galloping mount goes straight for `straight_in` table inches, then may
/// turn up to `max_turn_deg` in all.
pub(super) fn check_gallop_turns(
    points: &[Point2<f64>],
    straight_in: f64,
    max_turn_deg: f64,
) -> Result<(), RuleError> {
    let mut travelled = 0.0;
    let mut turned = 0.0;
    for w in points.windows(3) {
        let (a, b, c) = (w[0], w[1], w[2]);
        travelled += (b - a).norm();
        let h1 = (b - a).y.atan2((b - a).x).to_degrees();
        let h2 = (c - b).y.atan2((c - b).x).to_degrees();
        let mut turn = (h2 - h1).abs() % 360.0;
        if turn > 180.0 {
            turn = 360.0 - turn;
        }
        if turn <= STRAIGHT_TOLERANCE_DEG {
            continue;
        }
        if travelled + 1e-9 < straight_in {
            return Err(refuse(
                RefusalKind::Movement,
                "a galloping mount may turn only after moving 5 in",
            ));
        }
        turned += turn;
    }
    if turned > max_turn_deg + STRAIGHT_TOLERANCE_DEG {
        return Err(refuse(
            RefusalKind::Movement,
            format!("a galloping mount turns at most {max_turn_deg} degrees"),
        ));
    }
    Ok(())
}
