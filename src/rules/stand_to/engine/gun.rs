//! Artillery: a gun fires its cone. "Gun specifications—crew, reload
//! times, ammo capacity—are listed on the Weapon table": the crew serving
//! the gun sets how long it takes to reload, and each shot uses a round of
//! its ammunition.

use super::*;

/// A gun's shot, checked: the number to hit, who is in the cone with his
/// save, and notes for the player.
pub(super) struct GunPlan {
    needed: u32,
    /// Each figure in the cone, his save number, and whether he is a leader.
    saves: Vec<(FigureId, u32, bool)>,
    notes: Vec<String>,
}

impl StandToRules {
    /// The men serving a gun: active figures of its side within the
    /// artillery's crew reach of the gun figure (the gunner included).
    pub fn gun_crew(&self, state: &GameState, gun: &Figure) -> u32 {
        let n = state
            .figures
            .iter()
            .filter(|f| f.side == gun.side && f.active())
            .filter(|f| {
                f.id == gun.id
                    || self
                        .rule_range(state, gun, f, RangeMethod::EdgeToEdge)
                        .value_in
                        <= self.data.artillery.crew_reach_in
            })
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// Turns a gun takes to reload with the crew it has: the weapon's
    /// reload time, and one turn more for each man short of its crew.
    pub fn gun_load_turns(&self, state: &GameState, gun: &Figure, w: &WeaponData) -> u32 {
        let short = w
            .crew
            .map_or(0, |c| c.saturating_sub(self.gun_crew(state, gun)));
        w.aimed_load_turns.max(1) + short * self.data.artillery.turns_per_missing_crew
    }

    /// Can the gun fire now? Loaded (and not this very turn), ammunition
    /// left, not fired this turn.
    pub(super) fn check_gun(
        &self,
        state: &GameState,
        g: &Figure,
        w: &WeaponData,
    ) -> Result<(), RuleError> {
        if !w.gun {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is not a gun", w.name),
            ));
        }
        if status::st(g).ammo == Some(0) {
            return Err(refuse(
                RefusalKind::NotLoaded,
                format!(
                    "{}'s {} has used all its ammunition ({} rounds)",
                    g.name,
                    w.name,
                    w.ammo.unwrap_or(0)
                ),
            )
            .by(g.id));
        }
        if status::now(state, g).shots_this_turn() > 0 {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{}'s {} has fired this turn", g.name, w.name),
            )
            .by(g.id));
        }
        if w.aimed_load_turns > 0 && !g.loaded {
            return Err(refuse(
                RefusalKind::NotLoaded,
                format!(
                    "the {} must be loaded: {} turns with a crew of {} ({} of {} serve it)",
                    w.name,
                    self.gun_load_turns(state, g, w),
                    w.crew.unwrap_or(1),
                    self.gun_crew(state, g),
                    w.crew.unwrap_or(1)
                ),
            )
            .by(g.id));
        }
        if w.aimed_load_turns > 0 && status::st(g).loaded_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("the {} was loaded this turn: it fires next turn", w.name),
            )
            .by(g.id));
        }
        Ok(())
    }

    /// Checks a gun's shot and finds the figures in its cone.
    pub(super) fn gun_plan(&self, state: &GameState, gun: FigureId) -> Result<GunPlan, RuleError> {
        self.require_phase(state, "fire")?;
        let g = figure(state, gun)?;
        Self::require_own_turn(state, g)?;
        Self::require_able(state, g)?;
        let w = self.weapon(&g.weapon)?;
        self.check_gun(state, g, w)?;
        let art = &self.data.artillery;
        let needed = match Self::side_kind(state, g) {
            SideKind::European => art.hit_european,
            SideKind::Native => art.hit_native,
        };
        let max_range = w.range_in[2];
        let mut notes = Vec::new();
        let mut in_cone_ids = Vec::new();
        for f in state.figures.iter().filter(|f| f.id != gun && f.alive()) {
            let cone = in_cone(
                &g.placement,
                art.cone_deg,
                GUN_FACING_SIGMA_DEG,
                &f.placement,
            );
            let range = self.rule_range(state, g, f, RangeMethod::CentreToCentre);
            if cone.too_close_to_call {
                notes.push(format!(
                    "{} is at the edge of the cone: too close to call (taken as {})",
                    f.name,
                    if cone.value { "in" } else { "out" }
                ));
            }
            if cone.value
                && range.value_in <= max_range
                && self.sight(state, &g.placement, &f.placement).clear.value
            {
                in_cone_ids.push(f.id);
            }
        }
        let saves: Vec<(FigureId, u32, bool)> = in_cone_ids
            .iter()
            .filter_map(|&id| state.figure(id))
            .map(|f| {
                let sight = self.sight(state, &g.placement, &f.placement);
                // The weapon's save stands where the movement save would:
                // movement has no effect, cover and posture do.
                let save = save_number(
                    &self.data.saves,
                    &SaveSituation {
                        movement: w.artillery_save.unwrap_or(0),
                        prone: status::st(f).prone,
                        soft_cover: sight.cover.value == Cover::Soft,
                        hard_cover: sight.cover.value == Cover::Hard,
                        leader: f.leader,
                    },
                );
                (f.id, save, f.leader)
            })
            .collect();
        Ok(GunPlan {
            needed,
            saves,
            notes,
        })
    }

    /// The odds of a gun's shot: on target, and each man in the cone hit.
    pub(super) fn gun_odds(&self, state: &GameState, plan: &GunPlan) -> Vec<NamedOdds> {
        let p_on = calc::p_two_dice_at_least(plan.needed as i32, 0);
        let mut odds = named(&[("p_on_target", p_on)]);
        for (id, save, _) in &plan.saves {
            let name = state.figure(*id).map_or("?", |f| f.name.as_str());
            odds.extend(named(&[(
                &format!("p_{name}_hit"),
                p_on * f64::from(6 - save.min(&6)) / 6.0,
            )]));
        }
        odds
    }

    /// The `FireGun` command (see [`Action::FireGun`]).
    pub(super) fn resolve_gun(
        &self,
        state: &GameState,
        gun: FigureId,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.gun_plan(state, gun)?;
        let art = &self.data.artillery;
        let needed = plan.needed;
        let mut sc = Scratch::new(state);
        for n in &plan.notes {
            sc.note(n.clone());
        }
        sc.push(Event::Odds {
            purpose: "gun".into(),
            odds: self.gun_odds(state, &plan),
        });
        let saves = plan.saves;
        let white = sc.roll(dice, "gun to hit", Some(gun), art.dice)?;
        sc.push(Event::StandTo(StandToEvent::ShotFired {
            figure: gun,
            target: gun,
            mode: FireMode::Aimed,
        }));
        if let Some(left) = sc.state.figure(gun).and_then(|g| status::st(g).ammo) {
            sc.note(format!("{left} rounds left"));
        }
        if total(&white) < needed {
            sc.note("the gun's shot is off target");
            return Ok(sc.events);
        }
        let (w0, w1) = (white[0].face, white.get(1).map_or(0, |d| d.face));
        for (id, save, leader) in saves {
            let c = sc.roll(dice, "save against the gun", Some(id), 1)?[0].face;
            let saved = c <= save || (leader && c <= self.data.saves.leader_always_saves_on);
            if !saved {
                let t = figure(state, id)?;
                let struck = if t.mounted() {
                    let m = sc.roll(dice, "rider or mount", Some(id), 1)?[0].face;
                    if m <= self.data.mounted_hit.rider_max {
                        Struck::Man
                    } else {
                        Struck::Mount
                    }
                } else {
                    Struck::Man
                };
                let table = if struck == Struck::Man {
                    &self.data.damage.men
                } else {
                    &self.data.damage.mounts
                };
                self.wound(&mut sc, id, struck, table.wound(w0, w1));
            }
        }
        Ok(sc.events)
    }
}
