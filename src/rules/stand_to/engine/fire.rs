//! Loading, aiming and firing: the fire plan, its checks, the shot and its wounds.

use super::*;

impl StandToRules {
    /// Measures and looks up everything about a shot.
    pub fn fire_plan(
        &self,
        state: &GameState,
        shooter: FigureId,
        target: FigureId,
        mode: FireMode,
        aim_use: AimUse,
        at_mount: bool,
    ) -> Result<FirePlan, RuleError> {
        let s = figure(state, shooter)?;
        let t = figure(state, target)?;
        let w = self.weapon(&s.weapon)?;
        let range = self.rule_range(state, s, t, self.data.measure.fire);
        let band = geometry::band_of(range, &self.band_edges(w, mode)?);
        let Band::Within(i) = band.value else {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!(
                    "{} is out of range of {}'s {} ({:.1} in)",
                    t.name, s.name, w.name, range.value_in
                ),
            )
            .by(t.id));
        };
        let needed = if s.mounted() {
            w.hit_mounted[i]
        } else {
            w.hit_dismounted[i]
        };
        let ability = self.level(state, s)?.firing - self.wound_penalty(state, s);
        let sight = self.sight(state, &s.placement, &t.placement);
        let leader = t.leader;
        let save = save_number(
            &self.data.saves,
            &SaveSituation {
                movement: self.movement_save(state, t),
                prone: status::st(t).prone,
                soft_cover: sight.cover.value == Cover::Soft,
                hard_cover: sight.cover.value == Cover::Hard,
                leader,
            },
        );
        let aim_bonus = mode == FireMode::Aimed
            && status::now(state, s).aim_ready()
            && status::st(s).aiming_at == Some(target);
        Ok(FirePlan {
            range,
            band,
            band_name: BAND_NAMES[i].to_owned(),
            sight,
            situation: FireSituation {
                needed,
                ability,
                save,
                leader,
                aim_bonus,
                aim_use,
                note1: w.notes.contains(&1),
                mounted_target: t.mounted(),
                at_mount: at_mount && t.mounted(),
            },
        })
    }

    /// Shots allowed per turn for a mode.
    pub(super) fn shots_allowed(w: &WeaponData, mode: FireMode, rapid: bool) -> u32 {
        match mode {
            FireMode::Aimed => 1,
            // A bolt-action rifle snaps like a breechloader unless it pulls
            // rounds from the magazine.
            FireMode::Snap if w.rapid_aimed_load_turns.is_some() && !rapid => 1,
            FireMode::Snap => w.snapshots_per_turn,
        }
    }

    pub(super) fn load_turns(w: &WeaponData, rapid: bool) -> u32 {
        match (rapid, w.rapid_aimed_load_turns) {
            (true, Some(t)) => t,
            _ => w.aimed_load_turns,
        }
    }

    /// How a weapon's rate of aimed fire reads to the player.
    pub(super) fn aimed_rate(w: &WeaponData, rapid: bool) -> String {
        match Self::load_turns(w, rapid) {
            0 => format!("a {} fires aimed every turn", w.name),
            1 => format!(
                "a {} fires aimed every other turn (load on the first turn, shoulder and fire on the second)",
                w.name
            ),
            n => format!(
                "a {} takes {n} turns to load, one a turn, and fires aimed the turn after",
                w.name
            ),
        }
    }

    pub(super) fn check_fire(
        &self,
        state: &GameState,
        shooter: FigureId,
        target: FigureId,
        mode: FireMode,
        rapid: bool,
    ) -> Result<(), RuleError> {
        self.require_phase(state, "fire")?;
        let s = figure(state, shooter)?;
        let t = figure(state, target)?;
        Self::require_own_turn(state, s)?;
        Self::require_able(state, s)?;
        if !t.alive() || t.side == s.side {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                format!("{} is not an enemy target", t.name),
            )
            .by(t.id));
        }
        self.check_firer_ready(state, s, mode, rapid)?;
        if t.concealed {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!(
                    "{} is concealed: he is not on the table until he is sighted (spotted by a scout, or he fires or enters the open)",
                    t.name
                ),
            )
            .by(t.id));
        }
        let plan = self.fire_plan(state, shooter, target, mode, AimUse::Best, false)?;
        if !plan.sight.clear.value {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!("{} cannot see {}", s.name, t.name),
            )
            .by(s.id));
        }
        self.check_target_priority(state, s, t)
    }

    /// The firer's own side of a shot: not aiming this turn, shots left,
    /// loaded for an aimed shot (and not loaded this very turn), a weapon
    /// that fires this way.
    pub(super) fn check_firer_ready(
        &self,
        state: &GameState,
        s: &Figure,
        mode: FireMode,
        rapid: bool,
    ) -> Result<(), RuleError> {
        let covering_now = status::st(s)
            .covering
            .as_ref()
            .is_some_and(|c| c.turn == status::own_turn(state, s.side));
        if covering_now || (status::st(s).aiming_at.is_some() && !status::now(state, s).aim_ready())
        {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} spends this turn aiming without firing", s.name),
            )
            .by(s.id));
        }
        let w = self.weapon(&s.weapon)?;
        if w.gun {
            return Err(refuse(
                RefusalKind::CannotDo,
                "a gun fires its cone (fire-gun)",
            ));
        }
        if status::now(state, s).shots_this_turn() >= Self::shots_allowed(w, mode, rapid) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has no more shots this turn", s.name),
            )
            .by(s.id));
        }
        let needs_loading = mode == FireMode::Aimed && Self::load_turns(w, rapid) > 0;
        if needs_loading && !s.loaded {
            return Err(refuse(
                RefusalKind::NotLoaded,
                format!(
                    "{}'s {} must be loaded before an aimed shot; {}",
                    s.name,
                    w.name,
                    Self::aimed_rate(w, rapid)
                ),
            )
            .by(s.id));
        }
        if needs_loading && status::st(s).loaded_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} spent this turn loading; {}",
                    s.name,
                    Self::aimed_rate(w, rapid)
                ),
            )
            .by(s.id));
        }
        if mode == FireMode::Snap && w.snapshots_per_turn == 0 {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("a {} cannot snapshoot", w.name),
            ));
        }
        if !self.engaged_with(state, s).is_empty()
            && !s.loaded
            && mode == FireMode::Snap
            && w.aimed_load_turns > 0
        {
            return Err(refuse(
                RefusalKind::NotLoaded,
                "a figure in melee may fire only a loaded weapon",
            ));
        }
        Ok(())
    }

    /// Has the firer been "specifically ordered to shoot" this target? His
    /// standing order names the target.
    pub(super) fn ordered_to_shoot(state: &GameState, s: &Figure, t: &Figure) -> bool {
        status::now(state, s)
            .order()
            .is_some_and(|o| o.to_lowercase().contains(&t.name.to_lowercase()))
    }

    /// "Targets must be nominated according to the following priority":
    /// a target outside [`StandToRules::target_priority`]'s group is
    /// refused unless the firer was ordered to shoot it. Within the group
    /// the player rolls for the target (the text: "choose one randomly").
    pub(super) fn check_target_priority(
        &self,
        state: &GameState,
        s: &Figure,
        t: &Figure,
    ) -> Result<(), RuleError> {
        if Self::ordered_to_shoot(state, s, t) {
            return Ok(());
        }
        let priority = self.target_priority(state, s.id);
        if priority.is_empty() || priority.contains(&t.id) {
            return Ok(());
        }
        let names: Vec<String> = priority
            .iter()
            .filter_map(|id| state.figure(*id).map(|f| f.name.clone()))
            .collect();
        Err(refuse(
            RefusalKind::NoOrder,
            format!(
                "target priority: {} must fire at {} first (the enemy he aims at or those in the area he covers, then the nearest danger, then the nearest enemy); an order naming {} lets him shoot it",
                s.name,
                names.join(" or "),
                t.name
            ),
        )
        .by(s.id))
    }

    /// Wound events for a figure (or its mount), with preservation points.
    pub(super) fn wound(&self, sc: &mut Scratch, id: FigureId, struck: Struck, w: Wound) {
        let Some(f) = sc.state.figure(id).cloned() else {
            return;
        };
        let mount = struck == Struck::Mount;
        if mount {
            let new = combine_wounds(&self.data, f.mount_wound, w, false).unwrap_or(w);
            sc.push(Event::Wounded {
                figure: id,
                wound: new,
                mount: true,
            });
            return;
        }
        let ignores = self.ignores_light(&sc.state, &f);
        let Some(new) = combine_wounds(&self.data, f.wound, w, ignores) else {
            sc.note(format!("{} ignores a light wound", f.name));
            return;
        };
        if Some(new) == f.wound {
            sc.note(format!("{}'s wound is unchanged", f.name));
            return;
        }
        sc.push(Event::Wounded {
            figure: id,
            wound: new,
            mount: false,
        });
        let p = &self.data.preservation;
        let points = |w: Option<Wound>| match w {
            None => 0,
            Some(Wound::Light) => p.light,
            Some(Wound::Serious) => p.serious,
            Some(Wound::Killed) => p.killed + if f.leader { p.leader_extra } else { 0 },
        };
        let added = points(Some(new)).saturating_sub(points(f.wound));
        if let Some(side) = sc.state.sides.get(f.side) {
            let total = status::side_st(side).preservation_points + added;
            let broken = side.preservation_limit.is_some_and(|l| total > l);
            if broken && !status::side_st(side).broken {
                sc.note(format!(
                    "{}'s morale is broken: orders to retreat must be issued",
                    side.name
                ));
            }
            sc.push(Event::StandTo(StandToEvent::Preservation {
                side: f.side,
                points: total,
                broken,
            }));
        }
        if Self::side_kind(&sc.state, &f) == SideKind::European {
            sc.note(format!(
                "{} is wounded: roll the rescue reaction for his nearest friend",
                f.name
            ));
        }
    }

    pub(super) fn resolve_fire(
        &self,
        state: &GameState,
        cmd: (FigureId, FigureId, FireMode, bool, AimUse, bool),
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (shooter, target, mode, rapid, aim_use, at_mount) = cmd;
        self.check_fire(state, shooter, target, mode, rapid)?;
        let plan = self.fire_plan(state, shooter, target, mode, aim_use, at_mount)?;
        self.shoot(state, (shooter, target, mode), &plan, dice)
    }

    /// A checked shot: the notes, the odds, the dice, the result and its
    /// wounds.
    pub(super) fn shoot(
        &self,
        state: &GameState,
        (shooter, target, mode): (FigureId, FigureId, FireMode),
        plan: &FirePlan,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let mut sc = Scratch::new(state);
        self.fire_notes(state, &mut sc, shooter, target, plan);
        let o = fire_odds(&self.data, &plan.situation);
        sc.push(Event::Odds {
            purpose: "fire".into(),
            odds: fire_named(&o, plan.situation.mounted_target),
        });
        let white = sc.roll(
            dice,
            "to hit (white)",
            Some(shooter),
            self.data.fire.dice_white,
        )?;
        let coloured = sc.roll(
            dice,
            "save (coloured)",
            Some(target),
            self.data.fire.dice_coloured,
        )?;
        let mount_die = if plan.situation.mounted_target {
            Some(sc.roll(dice, "rider or mount", Some(target), 1)?[0].face)
        } else {
            None
        };
        let white = (white[0].face, white.get(1).map_or(0, |d| d.face));
        let out = fire_outcome(
            &self.data,
            &plan.situation,
            white.0,
            white.1,
            coloured[0].face,
            mount_die,
        );
        sc.push(Event::StandTo(StandToEvent::ShotFired {
            figure: shooter,
            target,
            mode,
        }));
        sc.push(Event::StandTo(StandToEvent::FireResolved {
            shooter,
            target,
            mode,
            band: plan.band_name.clone(),
            needed: plan.situation.needed,
            save: plan.situation.save,
            on_target: out.on_target,
            saved: out.saved,
            aim_bonus: out.aim_bonus,
        }));
        if let Some((struck, w)) = out.wound {
            if out.saved {
                sc.note("saved, but doubles: a light wound from splinters (note 1)");
            }
            self.wound(&mut sc, target, struck, w);
        }
        if out.on_target && out.saved {
            self.after_saved_shot(state, &mut sc, (shooter, target), plan, white)?;
        }
        Ok(sc.events)
    }

    /// What the player is told before a shot: the range and whether it is
    /// too close to call, line of sight, a target group to roll within,
    /// the first attack on a novice leader's force.
    pub(super) fn fire_notes(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        shooter: FigureId,
        target: FigureId,
        plan: &FirePlan,
    ) {
        sc.measured("range", plan.range, &plan.band);
        if plan.band.too_close_to_call {
            sc.note(format!(
                "range {:.2} in is within {:.2} in of a band edge: too close to call, measure by hand (taken as {})",
                plan.range.value_in,
                geometry::CALL_MARGIN_SIGMAS * plan.range.sigma_in,
                plan.band_name
            ));
        }
        if plan.sight.clear.too_close_to_call || plan.sight.cover.too_close_to_call {
            sc.note("line of sight or cover is too close to call: check by eye");
        }
        let priority = self.target_priority(state, shooter);
        if priority.len() > 1 && priority.contains(&target) {
            sc.note(format!(
                "target priority: {} men in the group; the text says choose one randomly (roll for it)",
                priority.len()
            ));
        }
        self.first_attack_note(state, sc, target);
    }

    /// A shot on target but saved: note 2 (it hits a figure in melee with
    /// the target) and the close miss (a target in cover or prone ducks).
    pub(super) fn after_saved_shot(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        (shooter, target): (FigureId, FigureId),
        plan: &FirePlan,
        (w0, w1): (u32, u32),
    ) -> Result<(), RuleError> {
        let t = figure(state, target)?;
        let w = self.weapon(&figure(state, shooter)?.weapon)?;
        if w.notes.contains(&2) && self.data.fire.note2_hits_melee_partner {
            let partners = self.engaged_with(state, t);
            match partners.as_slice() {
                [] => {}
                [only] => {
                    sc.note("saved: the shot hits the figure in melee with the target (note 2)");
                    let dmg = self.data.damage.men.wound(w0, w1);
                    self.wound(sc, *only, Struck::Man, dmg);
                }
                many => sc.note(format!(
                    "saved: the shot hits one of {} figures in melee with {} (note 2); his player chooses, damage {:?}",
                    many.len(),
                    t.name,
                    self.data.damage.men.wound(w0, w1)
                )),
            }
        }
        let in_cover = status::st(t).prone || plan.sight.cover.value != Cover::None;
        let ignores = self.level(state, t)?.ignores_close_miss;
        if in_cover && !ignores && sc.state.figure(target).is_some_and(Figure::active) {
            let until_turn = next_turn_of(state, t.side);
            sc.push(Event::StandTo(StandToEvent::Idle {
                figure: target,
                until_turn,
                reason: "close miss: ducks behind cover".into(),
            }));
        }
        Ok(())
    }

    /// Can the figure spend this turn loading? Loading takes the turn:
    /// once a turn, and not after he has fired ("load on first turn,
    /// shoulder rifle and fire on second turn"). Returns the loading
    /// event.
    pub(super) fn check_load(
        &self,
        state: &GameState,
        id: FigureId,
    ) -> Result<StandToEvent, RuleError> {
        let f = figure(state, id)?;
        Self::require_own_turn(state, f)?;
        Self::require_able(state, f)?;
        let w = self.weapon(&f.weapon)?;
        let need = if w.gun {
            self.gun_load_turns(state, f, w)
        } else {
            w.aimed_load_turns.max(1)
        };
        if f.loaded {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} is already loaded", f.name),
            )
            .by(f.id));
        }
        if status::now(state, f).shots_this_turn() > 0 {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} has fired this turn; {}",
                    f.name,
                    Self::aimed_rate(w, false)
                ),
            )
            .by(f.id));
        }
        if status::st(f).loaded_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} has loaded this turn ({} of {} turns done); {}",
                    f.name,
                    status::st(f).load_progress,
                    need,
                    Self::aimed_rate(w, false)
                ),
            )
            .by(f.id));
        }
        let progress = status::st(f).load_progress + 1;
        Ok(StandToEvent::Loading {
            figure: id,
            progress,
            loaded: progress >= need,
            turn: state.turn,
        })
    }

    /// The `Load` command (see [`Action::Load`]).
    pub(super) fn resolve_load(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        action: &Action,
    ) -> Result<(), RuleError> {
        let Action::Load { figure: id } = action else {
            return Ok(());
        };
        let e = self.check_load(state, *id)?;
        sc.push(Event::StandTo(e));
        Ok(())
    }

    /// Can the figure spend this turn aiming at `target`?
    pub(super) fn check_aim(
        &self,
        state: &GameState,
        id: FigureId,
        target: FigureId,
    ) -> Result<(), RuleError> {
        self.require_phase(state, "fire")?;
        let f = figure(state, id)?;
        Self::require_own_turn(state, f)?;
        Self::require_able(state, f)?;
        let t = figure(state, target)?;
        if status::now(state, f).shots_this_turn() > 0 {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has fired this turn", f.name),
            )
            .by(f.id));
        }
        if t.concealed {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!("{} is concealed: he cannot be aimed at", t.name),
            )
            .by(t.id));
        }
        if !self.sight(state, &f.placement, &t.placement).clear.value {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!("{} cannot see {}", f.name, t.name),
            )
            .by(f.id));
        }
        Ok(())
    }

    /// The `Aim` command (see [`Action::Aim`]).
    pub(super) fn resolve_aim(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        action: &Action,
    ) -> Result<(), RuleError> {
        let Action::Aim { figure: id, target } = action else {
            return Ok(());
        };
        self.check_aim(state, *id, *target)?;
        sc.push(Event::StandTo(StandToEvent::AimTaken {
            figure: *id,
            target: *target,
        }));
        Ok(())
    }
}
