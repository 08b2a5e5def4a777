//! Reactions and morale: the novice leader's first attack, spotting
//! concealed figures, the rescue of a wounded comrade, shedding
//! preservation points.

use super::*;

/// What a scout's observation would find, and its odds.
pub(super) struct SpotPlan {
    found: Vec<FigureId>,
    modifier: i32,
    needed: u32,
    /// Notes for the player (figures at the edge of the circle).
    notes: Vec<String>,
}

/// Who reacts to a comrade's wound.
pub(super) struct RescuePlan {
    /// The nearest friend, and whether he ignores the reaction (being
    /// charged, in melee or aiming).
    nearest: Option<(FigureId, bool)>,
    /// The leader who rolls when the nearest man does not rescue.
    leader: Option<FigureId>,
}

impl StandToRules {
    /// Can the leader roll the first-attack reaction? He must be a novice
    /// leader whose force has not rolled it yet.
    pub(super) fn check_first_attack(
        &self,
        state: &GameState,
        leader: FigureId,
    ) -> Result<(), RuleError> {
        let l = figure(state, leader)?;
        if state
            .sides
            .get(l.side)
            .is_some_and(|s| status::side_st(s).first_attack_rolled)
        {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                "the first attack reaction is rolled once",
            )
            .by(l.id));
        }
        if !l.leader || self.level(state, l)?.name != "novice" {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is not a novice leader", l.name),
            )
            .by(l.id));
        }
        Ok(())
    }

    /// The odds of the novice leader's first-attack roll.
    pub(super) fn first_attack_odds(&self) -> Vec<NamedOdds> {
        let nl = &self.data.reactions.novice_leader;
        named(&[(
            "p_becomes_trained",
            calc::p_two_dice_at_least(nl.needed as i32, 0),
        )])
    }

    /// The novice leader of the side `target` is on, when the first attack
    /// on his force is still to be rolled.
    pub(super) fn novice_leader_unrolled(
        &self,
        state: &GameState,
        target: FigureId,
    ) -> Option<FigureId> {
        let t = state.figure(target)?;
        if status::side_st(state.sides.get(t.side)?).first_attack_rolled {
            return None;
        }
        state
            .figures
            .iter()
            .find(|f| f.side == t.side && f.leader && f.active())
            .filter(|l| self.level(state, l).is_ok_and(|lv| lv.name == "novice"))
            .map(|l| l.id)
    }

    /// Tells the player that an attack is the first on a novice leader's
    /// force: "When a novice leader reacts to the first attack on his
    /// force, roll two dice".
    pub(super) fn first_attack_note(&self, state: &GameState, sc: &mut Scratch, target: FigureId) {
        if let Some(l) = self.novice_leader_unrolled(state, target)
            && let Some(name) = state.figure(l).map(|l| l.name.clone())
        {
            sc.note(format!(
                "the first attack on {name}'s force: {name} is a novice leader, roll his reaction (first-attack)"
            ));
        }
    }

    /// The `FirstAttack` command (see [`Action::FirstAttack`]).
    pub(super) fn resolve_first_attack(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        leader: FigureId,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        self.check_first_attack(state, leader)?;
        let l = figure(state, leader)?;
        let nl = &self.data.reactions.novice_leader;
        sc.push(Event::Odds {
            purpose: "novice leader".into(),
            odds: self.first_attack_odds(),
        });
        let r = sc.roll(dice, "novice leader's first attack", Some(leader), nl.dice)?;
        sc.push(Event::StandTo(StandToEvent::FirstAttackRolled {
            side: l.side,
        }));
        if total(&r) >= nl.needed {
            sc.push(Event::StandTo(StandToEvent::Experience {
                figure: leader,
                number: nl.becomes,
            }));
        } else {
            sc.note(format!("{} stays a novice", l.name));
        }
        Ok(())
    }

    /// Can the side shed preservation points now? "All figures in that
    /// group must get out of the enemy's line of fire and into a protected
    /// position (one where they can't be shot or charged by the enemy, and
    /// all are within voice range of the leader). Each turn spent this way
    /// allows the force to shed 1d6": a broken side, in its own turn, once
    /// a turn, every man unseen by the enemy, beyond every enemy's charge
    /// and within shouting range of a leader.
    pub(super) fn check_shed(&self, state: &GameState, side: usize) -> Result<(), RuleError> {
        let s = state.sides.get(side).ok_or(RuleError::Unknown {
            what: "side",
            name: side.to_string(),
        })?;
        if !status::side_st(s).broken {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} has not exceeded its preservation limit", s.name),
            ));
        }
        if state.active_side != side {
            return Err(refuse(
                RefusalKind::NotYourTurn,
                format!("{} sheds points in its own turn", s.name),
            ));
        }
        if status::side_st(s).shed_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} has shed points this turn: each turn in a protected position sheds {}d6 once",
                    s.name, self.data.preservation.shed_dice
                ),
            ));
        }
        self.check_protected(state, side)
    }

    /// Every active man of `side` out of the enemy's line of fire and
    /// charge, and within shouting range of an active leader of his side.
    pub(super) fn check_protected(&self, state: &GameState, side: usize) -> Result<(), RuleError> {
        let men: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|f| f.side == side && f.active())
            .collect();
        let leaders: Vec<&&Figure> = men.iter().filter(|f| f.leader).collect();
        let enemies: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|f| f.side != side && f.active())
            .collect();
        for m in &men {
            if let Some(e) = enemies
                .iter()
                .find(|e| self.sight(state, &e.placement, &m.placement).clear.value)
            {
                return Err(refuse(
                    RefusalKind::Morale,
                    format!(
                        "not a protected position: {} can see {} (all must be out of the enemy's line of fire)",
                        e.name, m.name
                    ),
                )
                .by(m.id));
            }
            if let Some(e) = enemies.iter().find(|e| {
                self.rule_range(state, e, m, RangeMethod::CentreToCentre)
                    .value_in
                    <= self.charge_reach_in(state, e)
            }) {
                return Err(refuse(
                    RefusalKind::Morale,
                    format!(
                        "not a protected position: {} is within {}'s charge",
                        m.name, e.name
                    ),
                )
                .by(m.id));
            }
            let in_voice = leaders.iter().any(|l| {
                self.rule_range(state, l, m, self.data.measure.orders)
                    .value_in
                    <= self.data.orders.shout_in
            });
            if !in_voice {
                return Err(refuse(
                    RefusalKind::OutOfCommand,
                    format!(
                        "not a protected position: {} is not within voice range ({} in) of a leader",
                        m.name, self.data.orders.shout_in
                    ),
                )
                .by(m.id));
            }
        }
        Ok(())
    }

    /// How far a figure can charge in one move, rule inches (a rider: his
    /// mount's fastest speed).
    pub(super) fn charge_reach_in(&self, state: &GameState, f: &Figure) -> f64 {
        if f.mounted() {
            return self
                .data
                .mount
                .speed
                .iter()
                .map(|s| s.max_in)
                .fold(0.0, f64::max);
        }
        match Self::side_kind(state, f) {
            SideKind::European => self.data.movement.european.charge,
            SideKind::Native => self.data.movement.native.charge,
        }
    }

    /// The `Shed` command (see [`Action::Shed`]).
    pub(super) fn resolve_shed(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        side: usize,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        self.check_shed(state, side)?;
        let s = &state.sides[side];
        let r = sc.roll(
            dice,
            "shed preservation points",
            None,
            self.data.preservation.shed_dice,
        )?;
        let points = status::side_st(s)
            .preservation_points
            .saturating_sub(total(&r));
        let broken = s.preservation_limit.is_some_and(|l| points > l);
        sc.push(Event::StandTo(StandToEvent::Shed {
            side,
            turn: state.turn,
        }));
        sc.push(Event::StandTo(StandToEvent::Preservation {
            side,
            points,
            broken,
        }));
        Ok(())
    }

    /// Can the scout observe the circle around `center`? What it would
    /// find and the number needed.
    pub(super) fn spot_plan(
        &self,
        state: &GameState,
        scout: FigureId,
        center: Point2<f64>,
    ) -> Result<SpotPlan, RuleError> {
        self.require_phase(state, "observe")?;
        let s = figure(state, scout)?;
        Self::require_own_turn(state, s)?;
        Self::require_able(state, s)?;
        if s.rank != Rank::Scout {
            return Err(
                refuse(RefusalKind::CannotDo, format!("{} is not a scout", s.name)).by(s.id),
            );
        }
        if !matches!(status::now(state, s).pace(), Pace::Stationary | Pace::Walk) {
            return Err(refuse(
                RefusalKind::CannotDo,
                "only a stationary or walking scout observes",
            ));
        }
        let point = Placement {
            center_in_table: center,
            facing_deg: 0.0,
            shape: geometry::BaseShape::Round { diameter_in: 0.0 },
            sigma_in: 0.0,
        };
        if !self.sight(state, &s.placement, &point).clear.value {
            return Err(refuse(
                RefusalKind::OutOfSight,
                "the scout cannot see that spot",
            ));
        }
        let sp = &self.data.spotting;
        let mut plan = SpotPlan {
            found: Vec::new(),
            modifier: 0,
            needed: self.level(state, s)?.spotting_needed,
            notes: Vec::new(),
        };
        let mut all_in_cover = true;
        for f in state
            .figures
            .iter()
            .filter(|f| f.side != s.side && f.concealed && f.alive())
        {
            let r = state.scale.rule_from_table(geometry::range_in(
                &point,
                &f.placement,
                self.data.measure.spotting,
            ));
            let call = r.at_most(sp.scout_radius_in);
            if call.too_close_to_call {
                plan.notes.push(format!(
                    "{} is at the edge of the scout's circle: too close to call",
                    f.name
                ));
            }
            if call.value {
                plan.found.push(f.id);
                all_in_cover &= Self::in_cover_area(state, f.placement.center_in_table);
            }
        }
        if !plan.found.is_empty() && all_in_cover {
            plan.modifier += sp.target_in_cover;
        }
        if s.mounted() {
            plan.modifier += sp.scout_mounted;
        }
        Ok(plan)
    }

    /// Is the point inside a soft or hard cover area (not "in the open")?
    pub(super) fn in_cover_area(state: &GameState, p: Point2<f64>) -> bool {
        state.terrain.iter().any(|a| {
            (a.is(TerrainKind::SoftCover) || a.is(TerrainKind::HardCover))
                && geometry::point_in_polygon(&a.polygon_in, p)
        })
    }

    /// The odds of a spotting roll.
    pub(super) fn spot_odds(plan: &SpotPlan) -> Vec<NamedOdds> {
        named(&[(
            "p_spotted",
            calc::p_two_dice_at_least(plan.needed as i32, plan.modifier),
        )])
    }

    /// The `Spot` command (see [`Action::Spot`]).
    pub(super) fn resolve_spot(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        scout: FigureId,
        center: Point2<f64>,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let plan = self.spot_plan(state, scout, center)?;
        for n in &plan.notes {
            sc.note(n.clone());
        }
        sc.push(Event::Odds {
            purpose: "spot".into(),
            odds: Self::spot_odds(&plan),
        });
        let r = sc.roll(dice, "spotting", Some(scout), self.data.spotting.dice)?;
        if total(&r) as i32 + plan.modifier >= plan.needed as i32 {
            for id in plan.found {
                sc.push(Event::StandTo(StandToEvent::Spotted { figure: id }));
            }
        } else {
            sc.note("nothing is spotted");
        }
        Ok(())
    }

    /// Is `f` being charged: an enemy charging this turn has him within
    /// reach of his charge?
    pub(super) fn being_charged(&self, state: &GameState, f: &Figure) -> bool {
        state.figures.iter().any(|e| {
            e.side != f.side
                && e.active()
                && status::now(state, e).pace() == Pace::Charge
                && self
                    .rule_range(state, e, f, RangeMethod::CentreToCentre)
                    .value_in
                    <= self.charge_reach_in(state, e)
        })
    }

    /// Who reacts to the wounding of `wounded`: his nearest friend (who
    /// ignores it when "being charged, in melee, or aiming") and the
    /// leader.
    pub(super) fn rescue_plan(
        &self,
        state: &GameState,
        wounded: FigureId,
    ) -> Result<RescuePlan, RuleError> {
        let w = figure(state, wounded)?;
        if Self::side_kind(state, w) != SideKind::European || w.wound.is_none() {
            return Err(refuse(
                RefusalKind::CannotDo,
                "the rescue reaction follows the wounding of a European",
            ));
        }
        let busy = |f: &Figure| {
            status::now(state, f).aiming()
                || !self.engaged_with(state, f).is_empty()
                || self.being_charged(state, f)
        };
        let nearest = state
            .figures
            .iter()
            .filter(|f| f.side == w.side && f.id != wounded && f.active())
            .min_by(|a, b| {
                let ra = self
                    .rule_range(state, w, a, RangeMethod::CentreToCentre)
                    .value_in;
                let rb = self
                    .rule_range(state, w, b, RangeMethod::CentreToCentre)
                    .value_in;
                ra.total_cmp(&rb)
            });
        let leader = nearest.and_then(|n| {
            state
                .figures
                .iter()
                .find(|f| f.side == w.side && f.leader && f.active() && f.id != n.id)
                .map(|l| l.id)
        });
        Ok(RescuePlan {
            nearest: nearest.map(|n| (n.id, busy(n))),
            leader,
        })
    }

    /// The odds of each row of the rescue table for one 2d6 roll.
    pub(super) fn rescue_odds(&self) -> Vec<NamedOdds> {
        self.data
            .reactions
            .rescue
            .iter()
            .map(|row| NamedOdds {
                name: format!("p_{}", row.result),
                p: probability(&[D6, D6], |f| row.rolls.contains(&(f[0] + f[1]))),
            })
            .collect()
    }

    /// The chance that the leader's roll orders a rescue.
    pub(super) fn leader_rescue_odds(&self) -> Vec<NamedOdds> {
        let p_rescue = self
            .data
            .reactions
            .rescue
            .iter()
            .filter(|row| row.result == "rescue")
            .map(|row| probability(&[D6, D6], |f| row.rolls.contains(&(f[0] + f[1]))))
            .sum::<f64>();
        named(&[("p_leader_orders_rescue", p_rescue)])
    }

    /// The odds of the rescue command's first roll.
    pub(super) fn rescue_plan_odds(&self, plan: &RescuePlan) -> Vec<NamedOdds> {
        match plan.nearest {
            Some((_, false)) => self.rescue_odds(),
            Some((_, true)) if plan.leader.is_some() => self.leader_rescue_odds(),
            _ => Vec::new(),
        }
    }

    /// The rescue table's result for a 2d6 total.
    fn rescue_row(&self, t: u32) -> Option<String> {
        self.data
            .reactions
            .rescue
            .iter()
            .find(|r| r.rolls.contains(&t))
            .map(|r| r.result.clone())
    }

    /// The `Rescue` command (see [`Action::Rescue`]).
    pub(super) fn resolve_rescue(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        wounded: FigureId,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let plan = self.rescue_plan(state, wounded)?;
        let w = figure(state, wounded)?;
        let Some((nearest, busy)) = plan.nearest else {
            sc.note("no friend is near enough to react");
            return Ok(());
        };
        let n = figure(state, nearest)?;
        let mut rescue_by_nearest = false;
        if busy {
            sc.note(format!(
                "{} is being charged, in melee or aiming: he ignores the reaction",
                n.name
            ));
        } else {
            sc.push(Event::Odds {
                purpose: "rescue".into(),
                odds: self.rescue_odds(),
            });
            let r = sc.roll(dice, "rescue reaction", Some(n.id), 2)?;
            match self.rescue_row(total(&r)).as_deref() {
                Some("freeze") => sc.push(Event::StandTo(StandToEvent::Idle {
                    figure: n.id,
                    until_turn: next_turn_of(state, n.side),
                    reason: "frozen by a comrade's wound".into(),
                })),
                Some("rescue") => {
                    rescue_by_nearest = true;
                    sc.note(format!(
                        "{} must try to rescue {}: he drags him at the evading rate ({} in)",
                        n.name,
                        w.name,
                        self.evade_rate_in(state, n)
                    ));
                }
                _ => sc.note(format!("{} does what his player wants", n.name)),
            }
        }
        if !rescue_by_nearest && let Some(l) = plan.leader {
            let l = figure(state, l)?;
            sc.push(Event::Odds {
                purpose: "rescue (leader)".into(),
                odds: self.leader_rescue_odds(),
            });
            let r = sc.roll(dice, "rescue reaction (leader)", Some(l.id), 2)?;
            if self.rescue_row(total(&r)).as_deref() == Some("rescue") {
                sc.note(format!(
                    "{} must order {} to rescue {}",
                    l.name, n.name, w.name
                ));
            }
        }
        Ok(())
    }

    /// A figure's evading rate, rule inches ("A rescued figure can be
    /// dragged at the Evading movement rate").
    pub(super) fn evade_rate_in(&self, state: &GameState, f: &Figure) -> f64 {
        match Self::side_kind(state, f) {
            SideKind::European => self.data.movement.european.evade,
            SideKind::Native => self.data.movement.native.evade,
        }
    }
}
