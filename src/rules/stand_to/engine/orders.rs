//! Orders: shouts, hand signals and musicians, one order a leader a turn.

use super::*;

impl StandToRules {
    pub(super) fn check_order(
        &self,
        state: &GameState,
        giver: FigureId,
        to: &[FigureId],
        via: &OrderVia,
        order: &str,
    ) -> Result<Vec<(FigureId, Call<bool>)>, RuleError> {
        self.require_phase(state, "non-combat")?;
        let g = figure(state, giver)?;
        Self::require_own_turn(state, g)?;
        Self::require_able(state, g)?;
        self.check_vocabulary(state, g, via, order)?;
        let per_turn = self.data.orders.orders_per_turn;
        if status::orders_in(g, state.turn) >= per_turn {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} has given {} order{} this turn; a leader can issue only {} per turn",
                    g.name,
                    status::orders_in(g, state.turn),
                    if status::orders_in(g, state.turn) == 1 {
                        ""
                    } else {
                        "s"
                    },
                    if per_turn == 1 {
                        "one order".to_owned()
                    } else {
                        format!("{per_turn} orders")
                    }
                ),
            )
            .by(g.id));
        }
        let mut reach = Vec::new();
        for &id in to {
            let r = figure(state, id)?;
            if r.side != g.side {
                return Err(refuse(
                    RefusalKind::NotAnEnemy,
                    format!("{} is not on {}'s side", r.name, g.name),
                )
                .by(r.id));
            }
            let range = self.rule_range(state, g, r, self.data.measure.orders);
            let call = match via {
                OrderVia::Shout => range.at_most(self.data.orders.shout_in),
                OrderVia::HandSignal => {
                    let mut c = range.at_most(self.data.orders.hand_signal_in);
                    let sight = self.sight(state, &r.placement, &g.placement);
                    let busy = status::now(state, r).shots_this_turn() > 0
                        || status::now(state, r).aiming()
                        || !self.engaged_with(state, r).is_empty()
                        || (status::now(state, r).pace() == Pace::Charge
                            && self.level(state, r).is_ok_and(|l| l.name == "fanatic"));
                    c.value = c.value && sight.clear.value && !busy;
                    c.too_close_to_call |= sight.clear.too_close_to_call;
                    c
                }
                OrderVia::Musician { .. } => Call::sure(true),
            };
            reach.push((id, call));
        }
        if let OrderVia::Musician { musician } = via {
            let m = figure(state, *musician)?;
            if m.rank != Rank::Musician || m.side != g.side {
                return Err(refuse(
                    RefusalKind::NotAnEnemy,
                    format!("{} is not a musician of {}'s side", m.name, g.name),
                )
                .by(m.id));
            }
            if !self
                .rule_range(state, g, m, self.data.measure.orders)
                .at_most(self.data.orders.shout_in)
                .value
            {
                return Err(refuse(
                    RefusalKind::NoOrder,
                    "the musician must hear the order",
                ));
            }
        }
        Ok(reach)
    }

    /// Who may send an order this way, and what it may say: shouts are free
    /// text from officers, NCOs and chiefs; hand signals come from the
    /// signal list (scouts only the simple signals); musicians' calls from
    /// the call list (native musicians only the calls marked native).
    pub(super) fn check_vocabulary(
        &self,
        state: &GameState,
        g: &Figure,
        via: &OrderVia,
        order: &str,
    ) -> Result<(), RuleError> {
        let o = &self.data.orders;
        let giver = o.givers.iter().any(|r| r == g.rank.name());
        let name = signal_name(order);
        let scout = g.rank == Rank::Scout;
        match via {
            OrderVia::Shout if giver => {
                if order.trim().is_empty() {
                    return Err(refuse(RefusalKind::Malformed, "say what the order is"));
                }
            }
            OrderVia::HandSignal if giver || scout => {
                let allowed: Vec<&String> = if giver {
                    o.hand_signals.iter().chain(&o.scout_signals).collect()
                } else {
                    o.scout_signals.iter().collect()
                };
                if !allowed.iter().any(|a| **a == name) {
                    let list: Vec<&str> = allowed.iter().map(|a| a.as_str()).collect();
                    return Err(refuse(
                        RefusalKind::NoOrder,
                        format!(
                            "`{order}` is not a hand signal{}; the signals are: {}",
                            if scout && !giver {
                                " a scout can give"
                            } else {
                                ""
                            },
                            list.join(", ")
                        ),
                    ));
                }
            }
            OrderVia::Musician { musician } if giver => {
                let native = figure(state, *musician)
                    .map(|m| Self::side_kind(state, m) == SideKind::Native)
                    .unwrap_or(false);
                let calls: Vec<&str> = o
                    .call
                    .iter()
                    .filter(|c| c.native || !native)
                    .map(|c| c.name.as_str())
                    .collect();
                if !calls.contains(&name.as_str()) {
                    return Err(refuse(
                        RefusalKind::NoOrder,
                        format!(
                            "`{order}` is not a call {} musician can sound; the calls are: {}",
                            if native { "a native" } else { "a" },
                            calls.join(", ")
                        ),
                    ));
                }
            }
            OrderVia::HandSignal => {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!(
                        "only {} give hand signals (scouts the simple ones)",
                        o.givers.join(", ")
                    ),
                ));
            }
            _ => {
                return Err(refuse(
                    RefusalKind::NoOrder,
                    format!("only {} give orders", o.givers.join(", ")),
                ));
            }
        }
        Ok(())
    }

    /// The `Order` command (see [`Action::Order`]).
    pub(super) fn resolve_order(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        action: &Action,
    ) -> Result<(), RuleError> {
        let Action::Order {
            giver,
            to,
            order,
            via,
        } = action
        else {
            return Ok(());
        };
        let reach = self.check_order(state, *giver, to, via, order)?;
        let mut heard = Vec::new();
        for (id, mut call) in reach {
            let r = figure(state, id)?;
            let name = r.name.clone();
            if !self.data.orders.fanatic_charging_takes_orders && self.charging_fanatic(state, r) {
                sc.note(format!(
                    "{name} is a charging fanatic: he reacts to no order"
                ));
                call = Call::sure(false);
            }
            if call.too_close_to_call {
                sc.note(format!("whether {name} gets the order is too close to call: players decide (taken as {})", call.value));
            }
            if call.value {
                heard.push(id);
            } else {
                sc.note(format!("{name} does not get the order"));
            }
        }
        let (via_name, from_turn) = match via {
            OrderVia::Shout => ("shout", state.turn),
            OrderVia::HandSignal => ("hand signal", state.turn),
            OrderVia::Musician { .. } => (
                "musician",
                state.turn + self.data.orders.musician_delay_turns,
            ),
        };
        let order = match via {
            OrderVia::Shout => order.trim().to_owned(),
            _ => signal_name(order),
        };
        sc.push(Event::StandTo(StandToEvent::OrderIssued {
            giver: *giver,
            turn: state.turn,
        }));
        sc.push(Event::StandTo(StandToEvent::OrderGiven {
            giver: *giver,
            to: heard,
            order,
            via: via_name.into(),
            from_turn,
        }));
        Ok(())
    }
}
