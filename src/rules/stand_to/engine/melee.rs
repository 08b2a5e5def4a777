//! Hand-to-hand: who may fight, the modifiers, the exchange and its odds.

use super::*;

/// The result of one melee exchange.
struct MeleeExchange {
    attacker_totals: Vec<i32>,
    defender_totals: Vec<i32>,
    /// Who is wounded, and how (before the hero's and fanatic's rules).
    wounds: Vec<(FigureId, Wound)>,
}

impl StandToRules {
    /// Is this melee the immediate attack of `f`'s charge? "A figure gets
    /// an immediate hand-to-hand attack when it charges to within one inch
    /// of an enemy figure": in his own move phase, the turn he charged into
    /// contact, before he has made it. Only that attack gets the charging
    /// +1 (the charge is in the move phase, after this turn's melee phase).
    pub fn charge_attack(&self, state: &GameState, f: &Figure) -> bool {
        self.phase_name(state) == "move"
            && f.side == state.active_side
            && status::st(f).charge_contact_turn == Some(state.turn)
    }

    pub(super) fn melee_side(
        &self,
        state: &GameState,
        f: &Figure,
        opponent: &Figure,
    ) -> Result<MeleeSide, RuleError> {
        let m = &self.data.melee;
        let weapon = self
            .data
            .melee_weapon(&f.melee_weapon)
            .ok_or(RuleError::Unknown {
                what: "melee weapon",
                name: f.melee_weapon.clone(),
            })?;
        let mut modifier =
            self.level(state, f)?.melee - self.wound_penalty(state, f) + weapon.modifier;
        if f.shield {
            modifier += m.shield;
        }
        if self.charge_attack(state, f) && !status::now(state, f).charged_through_rough() {
            modifier += m.charging;
        }
        if f.mounted() && !opponent.mounted() {
            modifier += m.mounted_vs_foot;
        }
        if status::st(f).prone {
            modifier += m.prone;
        }
        Ok(MeleeSide {
            modifier,
            evading: status::now(state, f).pace() == Pace::Evade,
        })
    }

    pub(super) fn check_melee(
        &self,
        state: &GameState,
        attackers: &[FigureId],
        defenders: &[FigureId],
    ) -> Result<(), RuleError> {
        if self.phase_name(state) == "move" {
            if let Some(a) = attackers
                .iter()
                .filter_map(|id| state.figure(*id))
                .find(|a| !self.charge_attack(state, a))
            {
                return Err(refuse(
                    RefusalKind::WrongPhase,
                    format!(
                        "this is the move phase: only a figure that has just charged to within an inch of an enemy attacks now, and {} has not",
                        a.name
                    ),
                )
                .by(a.id));
            }
        } else {
            self.require_phase(state, "melee")?;
        }
        if attackers.is_empty()
            || defenders.is_empty()
            || (attackers.len() > 1 && defenders.len() > 1)
        {
            return Err(refuse(
                RefusalKind::Malformed,
                "a melee is one figure against one or more",
            ));
        }
        let (lone, many) = if attackers.len() == 1 {
            (attackers[0], defenders)
        } else {
            (defenders[0], attackers)
        };
        let l = figure(state, lone)?;
        Self::require_able(state, l)?;
        for id in many {
            let o = figure(state, *id)?;
            if !o.active() || o.side == l.side {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!("{} cannot fight {}", o.name, l.name),
                )
                .by(o.id));
            }
            let r = self.rule_range(state, l, o, self.data.measure.melee);
            if !r.at_most(self.data.melee.engagement_in).value {
                return Err(refuse(
                    RefusalKind::NotInContact,
                    format!(
                        "{} and {} are {:.1} in apart: melee needs {} in",
                        l.name, o.name, r.value_in, self.data.melee.engagement_in
                    ),
                )
                .by(l.id));
            }
        }
        Ok(())
    }

    pub(super) fn resolve_melee(
        &self,
        state: &GameState,
        attackers: &[FigureId],
        defenders: &[FigureId],
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.check_melee(state, attackers, defenders)?;
        let mut sc = Scratch::new(state);
        for &a in attackers {
            for &d in defenders {
                let (fa, fd) = (figure(state, a)?, figure(state, d)?);
                let r = self.rule_range(state, fa, fd, self.data.measure.melee);
                let call = r.at_most(self.data.melee.engagement_in);
                if call.too_close_to_call {
                    sc.measured(&format!("{} to {}", fa.name, fd.name), r, &call);
                    sc.note("engagement distance too close to call: check by eye");
                }
            }
        }
        for &d in defenders {
            self.first_attack_note(state, &mut sc, d);
        }
        sc.push(Event::Odds {
            purpose: "melee".into(),
            odds: self.melee_named(state, attackers, defenders)?,
        });
        for &a in attackers {
            if state
                .figure(a)
                .is_some_and(|f| self.charge_attack(state, f))
            {
                sc.push(Event::StandTo(StandToEvent::ChargeAttackMade { figure: a }));
            }
        }
        let mut rolls = Vec::new();
        for &id in attackers.iter().chain(defenders) {
            let r = sc.roll(dice, "melee", Some(id), self.data.melee.dice)?;
            rolls.push((id, [r[0].face, r.get(1).map_or(0, |d| d.face)]));
        }
        let out = self.melee_exchange(state, attackers, defenders, &rolls)?;
        sc.push(Event::StandTo(StandToEvent::MeleeResolved {
            attackers: attackers.to_vec(),
            defenders: defenders.to_vec(),
            attacker_totals: out.attacker_totals,
            defender_totals: out.defender_totals,
        }));
        for (id, w) in out.wounds {
            self.wound(&mut sc, id, Struck::Man, w);
        }
        Ok(sc.events)
    }

    /// The exchange's result from each figure's two dice: the totals and
    /// who is wounded.
    fn melee_exchange(
        &self,
        state: &GameState,
        attackers: &[FigureId],
        defenders: &[FigureId],
        rolls: &[(FigureId, [u32; 2])],
    ) -> Result<MeleeExchange, RuleError> {
        let side_of = |id: FigureId, opp: FigureId| -> Result<MeleeSide, RuleError> {
            self.melee_side(state, figure(state, id)?, figure(state, opp)?)
        };
        let dice_of = |id: FigureId| rolls.iter().find(|(x, _)| *x == id).map_or([1, 1], |r| r.1);
        let (lone, lone_is_attacker, many) = if attackers.len() == 1 {
            (attackers[0], true, defenders)
        } else {
            (defenders[0], false, attackers)
        };
        let lone_dice = dice_of(lone);
        let lone_side = side_of(lone, many[0])?;
        let others: Vec<(MeleeSide, [u32; 2])> = many
            .iter()
            .map(|&id| side_of(id, lone).map(|s| (s, dice_of(id))))
            .collect::<Result<_, _>>()?;
        let (lone_wound, other_wounds) = if many.len() == 1 {
            let (lw, ow) =
                melee_outcome(&self.data, &lone_side, &others[0].0, lone_dice, others[0].1);
            (lw, vec![ow])
        } else {
            outnumbered_outcome(&self.data, &lone_side, lone_dice, &others)
        };
        let total = |s: &MeleeSide, d: [u32; 2]| (d[0] + d[1]) as i32 + s.modifier;
        let lone_total = total(&lone_side, lone_dice);
        let other_totals: Vec<i32> = others.iter().map(|(s, d)| total(s, *d)).collect();
        let (attacker_totals, defender_totals) = if lone_is_attacker {
            (vec![lone_total], other_totals)
        } else {
            (other_totals, vec![lone_total])
        };
        let mut wounds: Vec<(FigureId, Wound)> =
            lone_wound.map(|w| (lone, w)).into_iter().collect();
        wounds.extend(
            many.iter()
                .zip(other_wounds)
                .filter_map(|(&id, w)| w.map(|w| (id, w))),
        );
        Ok(MeleeExchange {
            attacker_totals,
            defender_totals,
            wounds,
        })
    }

    pub(super) fn melee_named(
        &self,
        state: &GameState,
        attackers: &[FigureId],
        defenders: &[FigureId],
    ) -> Result<Vec<NamedOdds>, RuleError> {
        if attackers.len() == 1 && defenders.len() == 1 {
            let (a, d) = (figure(state, attackers[0])?, figure(state, defenders[0])?);
            let o = melee_odds(
                &self.data,
                &self.melee_side(state, a, d)?,
                &self.melee_side(state, d, a)?,
            );
            return Ok(named(&[
                ("p_attacker_wounded", o.p_attacker_wounded),
                ("p_defender_wounded", o.p_defender_wounded),
                ("p_no_wound", o.p_no_wound),
            ]));
        }
        let (lone, many) = if attackers.len() == 1 {
            (attackers[0], defenders)
        } else {
            (defenders[0], attackers)
        };
        let l = figure(state, lone)?;
        let sides: Vec<MeleeSide> = many
            .iter()
            .map(|&id| self.melee_side(state, figure(state, id)?, l))
            .collect::<Result<_, _>>()?;
        let lone_side = self.melee_side(state, l, figure(state, many[0])?)?;
        Ok(match outnumbered_odds(&self.data, &lone_side, &sides) {
            Some((pl, po)) => {
                let mut v = named(&[(&format!("p_{}_wounded", l.name), pl)]);
                for (&id, p) in many.iter().zip(po) {
                    let n = figure(state, id)?.name.clone();
                    v.extend(named(&[(&format!("p_{n}_wounded"), p)]));
                }
                v
            }
            None => Vec::new(),
        })
    }
}
