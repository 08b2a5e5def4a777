//! Soldiers in Time as printed: each test quotes the sentence of the text it
//! enforces (issue 14's "wrong today" and "missing today" items). Dice and
//! cards are typed in.

use crate::common::soldiers_in_time::{
    PHASES, action, at_phase, data, fig, refused, rules, run, set_deck, sit, state,
};
use crate::rule_actions::named;

use approx::assert_relative_eq;
use nalgebra::Point2;
use serde_json::json;
use spotter::core::RefusalKind;
use spotter::game::{Command, Event, GameState};
use spotter::rules::dice::TypedDice;
use spotter::rules::soldiers_in_time::status::Order;
use spotter::rules::stand_to::Wound;

/// Resolves without asserting that every typed die is used (the old code
/// used fewer or more).
fn resolve(s: &GameState, c: &Command, faces: &[u32]) -> (GameState, Vec<Event>) {
    let mut dice = TypedDice::new(faces.iter().copied());
    let ev = rules().resolve(s, c, &mut dice).expect("resolves");
    let mut after = s.clone();
    for e in &ev {
        after.apply(e);
    }
    (after, ev)
}

/// The named odds of a command's first roll.
fn odd(s: &GameState, c: &Command, name: &str) -> f64 {
    rules()
        .odds(s, c)
        .expect("odds")
        .into_iter()
        .find(|o| o.name == name)
        .map_or_else(|| panic!("no {name}"), |o| o.p)
}

fn fire(shooter: &str, target: &str) -> Command {
    action("fire", json!({ "shooter": shooter, "target": target }))
}

fn checks_morale(ev: &[Event], who: &str) -> bool {
    ev.iter().any(|e| {
        matches!(e, Event::Odds { purpose, .. } if purpose.starts_with(&format!("{who} checks morale")))
    })
}

#[test]
fn firing_while_charging_costs_4_not_6() {
    // 6.1: "Note: Foot soldiers may fire in the same turn that they charge
    // at a penalty of +4."
    let figs = fig(
        "Zulu",
        "Red",
        10.0,
        10.0,
        90.0,
        "loaded = true\nstatus = { order = \"formed-charge\", charging = \"true\" }",
    ) + &fig("Target", "Black", 10.0, 15.0, 270.0, "");
    let s = at_phase(state(&figs, "", ""), "shooting", 0);
    // Experience 6: a d10 of 1 or 2 hits at +4 (at +6 nothing could).
    assert_relative_eq!(
        odd(&s, &fire("Zulu", "Target"), "p_hit"),
        0.2,
        epsilon = 1e-12
    );
}

#[test]
fn a_leader_under_a_passed_forward_march_may_snap_fire() {
    // 5.2: "Forward March (up to full movement and snap fire)"; the leader
    // is in the unit.
    let figs = fig(
        "Sgt",
        "Red",
        10.0,
        10.0,
        90.0,
        "leader = true\nloaded = true\nstatus = { order = \"forward-march\" }",
    ) + &fig("Target", "Black", 10.0, 15.0, 270.0, "");
    let s = at_phase(state(&figs, "", ""), "shooting", 0);
    rules()
        .check(&s, &fire("Sgt", "Target"))
        .expect("a leader under a passed forward march snaps");
    // Snap fire +2: 1 to 4 on the d10.
    assert_relative_eq!(
        odd(&s, &fire("Sgt", "Target"), "p_hit"),
        0.4,
        epsilon = 1e-12
    );
}

/// A leader and one man; the leader flips `card` for `order`.
fn after_activation(order: &str, card: &str) -> GameState {
    let figs = fig(
        "Sgt",
        "Red",
        10.0,
        10.0,
        90.0,
        "leader = true\nloaded = true",
    ) + &fig("Pte", "Red", 12.0, 10.0, 90.0, "loaded = true")
        + &fig("Target", "Black", 10.0, 15.0, 270.0, "");
    let mut s = at_phase(state(&figs, "", ""), "command", 0);
    set_deck(&mut s, "Red", &[card]);
    let act = action(
        "activate",
        json!({ "leader": "Sgt", "order": order, "men": ["Pte"] }),
    );
    let (after, _) = run(&s, &act, &[1]);
    at_phase(after, "shooting", 0)
}

#[test]
fn a_failed_forward_march_snaps_but_not_its_leader() {
    // 5.2: "If the Activation Check is failed, then unit does not move ...
    // However, everyone in the unit may still snap fire except the leader
    // this turn."
    let s = after_activation("forward-march", "9H");
    assert!(refused(&s, &fire("Sgt", "Target"), RefusalKind::NoOrder).contains("not its leader"));
    rules()
        .check(&s, &fire("Pte", "Target"))
        .expect("the man snaps");
    let mut moving = at_phase(s, "movement-men", 0);
    moving.turn = 1;
    let mv = action(
        "move",
        json!({ "figure": "Pte", "path_in": [[12.0, 12.0]] }),
    );
    assert!(refused(&moving, &mv, RefusalKind::NoOrder).contains("does not move"));
}

#[test]
fn men_of_a_failed_formed_charge_may_not_snap_fire() {
    // 5.2, Formed Charge: "If the Activation Check is failed, the unit does
    // not move ... No snap fire is allowed since the men used their time
    // encouraging others to charge."
    let s = after_activation("formed-charge", "9H");
    let why = refused(&s, &fire("Pte", "Target"), RefusalKind::NoOrder);
    assert!(why.contains("no snap fire"), "{why}");
    let passed = after_activation("formed-charge", "2H");
    rules()
        .check(&passed, &fire("Pte", "Target"))
        .expect("a passed formed charge may snap");
}

#[test]
fn the_figures_beside_a_routing_man_are_found_where_he_stood() {
    // 8: "Friendly Figure within one inch (adjacent or in front) is
    // routed/killed" checks morale; 7 step 9: "The routing figures (4+
    // inches) cause a morale check to any adjacent figures".
    let figs = fig("A", "Red", 10.0, 10.0, 90.0, "")
        // 0.5 in from A where he stands.
        + &fig("B", "Red", 11.5, 10.0, 90.0, "")
        // 0.2 in from where A's 4 in rout (away from the enemy) ends.
        + &fig("C", "Red", 11.2, 6.0, 90.0, "")
        + &fig("Enemy", "Black", 10.0, 30.0, 270.0, "");
    let mut s = at_phase(state(&figs, "", ""), "melee", 0);
    // A: a black King without a leader routs; B holds on a 2.
    set_deck(&mut s, "Red", &["KS", "2H", "3H"]);
    let check = action(
        "morale-check",
        json!({ "figure": "A", "reason": "charged" }),
    );
    let (after, ev) = resolve(&s, &check, &[1, 1, 1]);
    assert!(sit(named(&after, "A")).routed);
    assert_relative_eq!(
        named(&after, "A").placement.center_in_table,
        Point2::new(10.0, 6.0),
        epsilon = 1e-9
    );
    assert!(checks_morale(&ev, "B"), "B stood beside him: {ev:#?}");
    assert!(!checks_morale(&ev, "C"), "C was 3 in away when he broke");
}

#[test]
fn independent_fire_ends_when_its_leader_dies() {
    // 5.2: "Soldiers under Independent Fire orders do not have to roll for
    // an activation check until the leader either dies or gives different
    // orders."
    let figs = fig("Lt", "Red", 10.0, 10.0, 90.0, "leader = true")
        + &fig("Pte", "Red", 12.5, 10.0, 90.0, "loaded = true")
        + &fig(
            "Enemy",
            "Black",
            10.0,
            20.0,
            270.0,
            "loaded = true\nstatus = { order = \"independent-fire\" }",
        );
    let mut s = at_phase(state(&figs, "", ""), "command", 0);
    // The order passes (2), the Lt's save fails (9), Pte holds (2).
    set_deck(&mut s, "Red", &["2H", "9H", "2D"]);
    let order = action(
        "activate",
        json!({ "leader": "Lt", "order": "independent-fire", "men": ["Pte"] }),
    );
    let (s, _) = run(&s, &order, &[1]);
    assert!(
        rules()
            .check(&at_phase(s.clone(), "shooting", 0), &fire("Pte", "Enemy"))
            .is_ok()
    );
    // The enemy shoots the Lt: hit on a 1, damage 10, save card 9H fails.
    let black = at_phase(s, "shooting", 1);
    let (after, _) = resolve(&black, &fire("Enemy", "Lt"), &[1, 10, 1, 1]);
    assert_eq!(named(&after, "Lt").wound, Some(Wound::Killed));
    let red = at_phase(after, "shooting", 0);
    let why = refused(&red, &fire("Pte", "Enemy"), RefusalKind::NoOrder);
    assert!(why.contains("command range"), "{why}");
}

#[test]
fn a_routed_figure_cannot_start_a_melee() {
    // 8: "A routing figure will not melee or shoot and must move directly
    // toward friendly lines."
    let figs = fig(
        "R",
        "Red",
        10.0,
        10.0,
        90.0,
        "status = { routed = \"true\" }",
    ) + &fig("E", "Black", 10.0, 11.2, 270.0, "");
    let s = at_phase(state(&figs, "", ""), "melee", 0);
    let melee = action("melee", json!({ "a": "R", "b": "E" }));
    assert!(refused(&s, &melee, RefusalKind::Morale).contains("routed"));
    let shooting = at_phase(s, "shooting", 0);
    assert!(refused(&shooting, &fire("R", "E"), RefusalKind::Morale).contains("routed"));
}

/// A sapper under a forward march beside Black's minefield square 8..11,
/// 10..13, and a friend near where he enters it.
fn minefield() -> GameState {
    let figs = fig(
        "Sapper",
        "Red",
        6.5,
        11.0,
        0.0,
        "status = { order = \"forward-march\", armour = \"9\" }",
    ) + &fig("Enemy", "Black", 40.0, 40.0, 270.0, "")
        + &fig(
            "Bystander",
            "Red",
            7.0,
            12.8,
            0.0,
            "status = { armour = \"9\" }",
        );
    at_phase(state(&figs, "", r#", mines = "8,10""#), "movement-men", 0)
}

fn mine_dice(ev: &[Event]) -> usize {
    ev.iter()
        .filter_map(|e| match e {
            Event::Rolled { purpose, dice, .. } if purpose == "mine" => Some(dice.len()),
            _ => None,
        })
        .sum()
}

#[test]
fn a_mine_explodes_in_its_square() {
    // 10.3: "When a soldier enters a mine field segment there is a 1-3
    // chance (1d10) per square that a mine will explode ... Treat an
    // exploded mine like a grenade explosion with a radius of 2 inches."
    let mut s = minefield();
    set_deck(&mut s, "Red", &["2H", "3H"]);
    let through = action(
        "move",
        json!({ "figure": "Sapper", "path_in": [[12.0, 11.0]] }),
    );
    // The mine goes off on a 3; blast d10 5 against armour 9 for each man
    // caught, each holding his morale.
    let (after, ev) = resolve(&s, &through, &[3, 5, 1, 5, 1]);
    assert_relative_eq!(
        named(&after, "Sapper").placement.center_in_table,
        Point2::new(8.0, 11.0),
        epsilon = 1e-9
    );
    let bystander = named(&s, "Bystander").id;
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Rolled { purpose, figure, .. }
            if purpose == "blast damage" && *figure == Some(bystander))),
        "the man beside the square's edge is within 2 in of the blast: {ev:#?}"
    );
}

#[test]
fn stopping_inside_a_minefield_rolls_once_now_and_once_moving_on() {
    // 10.3: "Because he must roll each time he moves into or through a mine
    // field segment, a soldier who has to stop in the mine field will have
    // to roll at least twice."
    let s = minefield();
    let stop = action(
        "move",
        json!({ "figure": "Sapper", "path_in": [[9.5, 11.0]] }),
    );
    let (inside, ev) = resolve(&s, &stop, &[5, 5, 5]);
    assert_eq!(mine_dice(&ev), 1, "entering the square: one roll");
    let p = ev.iter().find_map(|e| match e {
        Event::Odds { odds, .. } => Some(odds[0].p),
        _ => None,
    });
    assert_relative_eq!(p.expect("mine odds"), 0.3, epsilon = 1e-12);
    // Next turn he moves on out of it: the second roll.
    let mut next = inside;
    next.turn += 1;
    let sapper = named(&next, "Sapper").id;
    next.figures[sapper.index()]
        .rules
        .soldiers_in_time_mut()
        .order = Some(spotter::rules::soldiers_in_time::status::Ordered {
        order: Order::ForwardMarch,
        passed: true,
        by: None,
        away: false,
    });
    let out = action(
        "move",
        json!({ "figure": "Sapper", "path_in": [[12.5, 11.0]] }),
    );
    let (_, ev) = resolve(&next, &out, &[5, 5, 5]);
    assert_eq!(mine_dice(&ev), 1, "moving on through it: the second roll");
}

#[test]
fn the_melee_tie_rule_is_a_marked_house_value() {
    // 7 step 6: "Check to see which player has highest number and wins that
    // round of melee." Equal totals are not in the text.
    let d = data();
    assert!(
        d.melee
            .house
            .get("tie")
            .is_some_and(|h| h.contains("no rule"))
    );
}

#[test]
fn the_melee_loser_retreats_1_in() {
    // 7 step 9: "The losing figure retreats at least 1 inch in all cases."
    let figs = fig("A", "Red", 10.0, 10.0, 90.0, "")
        + &fig(
            "B",
            "Black",
            10.0,
            11.1,
            270.0,
            "status = { armour = \"9\" }",
        );
    let mut s = at_phase(state(&figs, "", ""), "melee", 0);
    set_deck(&mut s, "Black", &["2S"]);
    // A 10 against B's 1: damage 9 against armour 9, a morale check B holds.
    let (after, _) = run(
        &s,
        &action("melee", json!({ "a": "A", "b": "B" })),
        &[10, 1, 1],
    );
    assert_relative_eq!(
        named(&after, "B").placement.center_in_table,
        Point2::new(10.0, 12.1),
        epsilon = 1e-9
    );
    // Equal totals: nobody moves.
    let (after, _) = run(&s, &action("melee", json!({ "a": "A", "b": "B" })), &[4, 4]);
    let at = |g: &GameState| -> Vec<_> { g.figures.iter().map(|f| f.placement).collect() };
    assert_eq!(at(&after), at(&s));
}

#[test]
fn a_lone_soldier_out_of_command_range_acts_on_the_house_chart() {
    // 1.2: "All figures outside of the command range of any leader must roll
    // for their orders on the 'out of command range orders chart'."
    let figs = fig("Sgt", "Red", 10.0, 10.0, 90.0, "leader = true")
        + &fig("Near", "Red", 12.0, 10.0, 90.0, "")
        + &fig("Lone", "Red", 30.0, 10.0, 90.0, "loaded = true")
        + &fig("Enemy", "Black", 30.0, 20.0, 270.0, "");
    let base = state(&figs, "", "");
    let mv = |to: [f64; 2], run: bool| {
        action(
            "move",
            json!({ "figure": "Lone", "path_in": [to], "run": run }),
        )
    };
    // Today's gap closed: without a card he cannot move, and is told why.
    let moving = at_phase(base.clone(), "movement-men", 0);
    assert!(
        refused(&moving, &mv([30.0, 14.0], false), RefusalKind::NoOrder).contains("individual")
    );
    // A man within 3 in takes his orders from his leader.
    let near = action("individual", json!({ "figure": "Near" }));
    let command = at_phase(base, "command", 0);
    assert!(refused(&command, &near, RefusalKind::NoOrder).contains("command range"));
    // A 5 passes his 6: he walks (not runs) and, having moved, snap fires.
    let lone = action("individual", json!({ "figure": "Lone" }));
    let mut s = command.clone();
    set_deck(&mut s, "Red", &["5H"]);
    let (acted, _) = run(&s, &lone, &[1]);
    assert_eq!(
        sit(named(&acted, "Lone"))
            .order
            .map(|o| (o.order, o.passed)),
        Some((Order::Individual, true))
    );
    let moving = at_phase(acted, "movement-men", 0);
    assert!(
        refused(&moving, &mv([30.0, 18.0], true), RefusalKind::NoOrder).contains("formed charge")
    );
    let (moved, _) = run(&moving, &mv([30.0, 14.0], false), &[]);
    let shooting = at_phase(moved, "shooting", 0);
    // Snap +2 at 6 in: 1 to 4.
    assert_relative_eq!(
        odd(&shooting, &fire("Lone", "Enemy"), "p_hit"),
        0.4,
        epsilon = 1e-12
    );
    // A 9 fails: he holds, and may only snap fire.
    let mut s = command;
    set_deck(&mut s, "Red", &["9H"]);
    let (held, _) = run(&s, &lone, &[1]);
    let moving = at_phase(held.clone(), "movement-men", 0);
    assert!(
        refused(&moving, &mv([30.0, 14.0], false), RefusalKind::NoOrder).contains("does not move")
    );
    let shooting = at_phase(held, "shooting", 0);
    // Snap +2 at 10 in (beyond half the musket's 18 in, +2): 1 or 2.
    assert_relative_eq!(
        odd(&shooting, &fire("Lone", "Enemy"), "p_hit"),
        0.2,
        epsilon = 1e-12
    );
}

#[test]
fn out_of_the_enemys_sight_a_lone_soldier_needs_no_card() {
    // 4: "A player does not have to flip cards for orders for figures when
    // out of the enemies line of sight."
    let figs = fig("Lone", "Red", 30.0, 10.0, 90.0, "")
        + &fig("Enemy", "Black", 30.0, 30.0, 270.0, "")
        + "\n[[terrain]]\nname = \"ridge\"\nkinds = [\"blocking\"]\npolygon_in = [[20.0, 18.0], [40.0, 18.0], [40.0, 20.0], [20.0, 20.0]]\n";
    let s = at_phase(state(&figs, "", ""), "command", 0);
    let (after, ev) = run(&s, &action("individual", json!({ "figure": "Lone" })), &[]);
    assert!(!ev.iter().any(|e| matches!(e, Event::CardDrawn { .. })));
    assert!(sit(named(&after, "Lone")).order.is_some_and(|o| o.passed));
}

#[test]
fn the_turn_flips_a_card_for_who_goes_first_in_each_phase() {
    // 2: "Flip a playing card and look at the color to decide who goes
    // first for each sub phase." Movement is "divided into three sub phases
    // depending on the type of figure/unit": horses, then men, then vehicles.
    let rider = fig(
        "Rider",
        "Red",
        10.0,
        10.0,
        90.0,
        "mount_speed = \"walk\"\nstatus = { order = \"independent-fire\" }",
    )
    .replace("base = \"foot\"", "base = \"mounted\"");
    let figs = rider
        + &fig(
            "Pte",
            "Red",
            20.0,
            10.0,
            90.0,
            "status = { order = \"forward-march\" }",
        )
        + &fig("Enemy", "Black", 20.0, 40.0, 270.0, "");
    let mut s = state(&figs, "", "");
    assert_eq!(rules().phases(), PHASES);
    let deck = s
        .decks
        .iter_mut()
        .find(|d| d.name == "turn cards")
        .expect("the turn's deck");
    deck.draw = vec!["KS".into(), "AH".into()];
    let end = Command::EndPhase;
    // Red's rally, then Black's: no card within a phase.
    let (s, ev) = run(&s, &end, &[]);
    assert_eq!((s.phase, s.active_side), (0, 1));
    assert!(!ev.iter().any(|e| matches!(e, Event::CardDrawn { .. })));
    // The command phase: a black King, Black goes first, then Red.
    let (s, _) = run(&s, &end, &[1]);
    assert_eq!((s.phase, s.active_side), (1, 1));
    let (s, _) = run(&s, &end, &[]);
    assert_eq!((s.phase, s.active_side), (1, 0));
    // The horses' sub-phase: a red Ace, Red first.
    let (s, _) = run(&s, &end, &[1]);
    assert_eq!((s.phase, s.active_side), (2, 0));
    let walk = action(
        "move",
        json!({ "figure": "Pte", "path_in": [[20.0, 14.0]] }),
    );
    assert!(refused(&s, &walk, RefusalKind::WrongPhase).contains("movement-men"));
    let ride = action(
        "move",
        json!({ "figure": "Rider", "path_in": [[10.0, 15.0]] }),
    );
    rules().check(&s, &ride).expect("horses move first");
    // The turn ends: orders end, but independent fire.
    let mut last = at_phase(s, "follow-through", 1);
    last.rules.soldiers_in_time_mut().first = None;
    last.active_side = 0;
    let deck = last
        .decks
        .iter_mut()
        .find(|d| d.name == "turn cards")
        .unwrap();
    deck.draw = vec!["2D".into()];
    // Red is the phase's first side (no flip recorded): Black ends it.
    let (last, _) = run(&last, &end, &[]);
    let (next, _) = run(&last, &end, &[1]);
    assert_eq!((next.turn, next.phase), (2, 0));
    assert!(sit(named(&next, "Pte")).order.is_none());
    assert!(sit(named(&next, "Rider")).order.is_some());
}

#[test]
fn a_reloaded_musket_stays_loaded_for_a_later_shot() {
    // 6.2: "If they have reloaded then they may fire during the shooting
    // phase or they may stay 'loaded' for a future shooting phase."
    let figs = fig(
        "Pte",
        "Red",
        10.0,
        10.0,
        90.0,
        "status = { order = \"independent-fire\" }",
    ) + &fig("Enemy", "Black", 10.0, 15.0, 270.0, "");
    let s = at_phase(state(&figs, "", ""), "shooting", 0);
    let reload = action("reload", json!({ "figure": "Pte" }));
    // The musket reloads on 1 to 5.
    let (loaded, _) = run(&s, &reload, &[3]);
    assert!(named(&loaded, "Pte").loaded);
    assert!(refused(&loaded, &reload, RefusalKind::AlreadyActed).contains("loaded already"));
    // Next turn he is still loaded: no reload roll before the shot.
    let mut later = loaded.clone();
    later.turn += 1;
    assert_relative_eq!(odd(&later, &fire("Pte", "Enemy"), "p_reloaded"), 1.0);
    // A 6 fails: he cannot try again this turn.
    let (unloaded, _) = run(&s, &reload, &[6]);
    assert!(!named(&unloaded, "Pte").loaded);
    assert!(refused(&unloaded, &fire("Pte", "Enemy"), RefusalKind::NotLoaded).contains("reload"));
}

#[test]
fn range_cover_moving_and_size_modify_the_shot() {
    // 6.2: "adjust the die roll number by applying range modifiers, cover
    // modifiers, movement modifiers, target size modifiers and type of fire
    // modifiers" (the tables are lost: house values).
    let figs = fig(
        "Pte",
        "Red",
        10.0,
        10.0,
        90.0,
        "loaded = true\nstatus = { order = \"independent-fire\" }",
    ) + &fig("Near", "Black", 10.0, 15.0, 270.0, "")
        + &fig("Far", "Black", 20.0, 22.0, 270.0, "")
        + &fig("Covered", "Black", 22.0, 15.0, 270.0, "")
        + &fig(
            "Runner",
            "Black",
            5.0,
            15.0,
            270.0,
            "status = { \"moved-turn\" = \"1\", \"moved-in\" = \"4\" }",
        )
        + &fig("Rider", "Black", 2.0, 12.0, 270.0, "mount_speed = \"walk\"")
            .replace("base = \"foot\"\nmount", "base = \"mounted\"\nmount")
        + "\n[[terrain]]\nname = \"scrub\"\nkinds = [\"soft-cover\"]\npolygon_in = [[20.0, 14.0], [24.0, 14.0], [24.0, 16.0], [20.0, 16.0]]\n";
    let s = at_phase(state(&figs, "", ""), "shooting", 0);
    let d = data();
    let p = |t: &str| odd(&s, &fire("Pte", t), "p_hit");
    let hit = |m: i32| f64::from((6 - m).clamp(0, 10)) / 10.0;
    assert_relative_eq!(p("Near"), hit(0), epsilon = 1e-12);
    assert_relative_eq!(p("Far"), hit(d.fire.long_range_add), epsilon = 1e-12);
    assert_relative_eq!(
        p("Covered"),
        hit(d.fire.long_range_add + d.fire.soft_cover_add),
        epsilon = 1e-12
    );
    assert_relative_eq!(p("Runner"), hit(d.fire.moving_target_add), epsilon = 1e-12);
    assert_relative_eq!(p("Rider"), hit(d.fire.mounted_target_add), epsilon = 1e-12);
}

/// A scenario of Red's figures `figs` and one Black man, as the loader
/// reads it (set-up checks included).
fn load(figs: &str) -> Result<GameState, String> {
    let enemy = fig("Enemy", "Black", 50.0, 50.0, 270.0, "");
    crate::common::soldiers_in_time::load(&format!("{figs}\n{enemy}\n"), "", "")
}

#[test]
fn one_leader_for_every_10_men_at_set_up() {
    // 10.2: "As a rule, for every 10 soldiers you have on your force you
    // must make one soldier of your choice a leader."
    let men = |n: usize, leaders: usize| -> String {
        (0..n)
            .map(|i| {
                let extra = if i < leaders { "leader = true" } else { "" };
                fig(
                    &format!("M{i}"),
                    "Red",
                    5.0 + i as f64 * 1.5,
                    10.0,
                    90.0,
                    extra,
                )
            })
            .collect()
    };
    let why = load(&men(10, 0)).expect_err("ten men without a leader");
    assert!(why.contains("Red has 10 men and 0 leader"), "{why}");
    assert!(why.contains("leader = true"), "{why}");
    let mut s = load(&men(10, 1)).expect("ten men and their leader");
    load(&men(9, 0)).expect("nine men need no leader");
    let why = load(&men(20, 1)).expect_err("twenty men and one leader");
    assert!(why.contains("makes 2"), "{why}");
    // The same check, typed, on a state whose leader is gone.
    let m0 = named(&s, "M0").id;
    s.figures[m0.index()].leader = false;
    match rules().prepare(&mut s) {
        Err(spotter::rules::RuleError::Refused(r)) => {
            assert_eq!(r.kind, RefusalKind::NoOrder);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_hit_exposes_every_hidden_figure_within_2_in() {
    // 11: "Note: Hidden troops receive a +2 because of the benefit of
    // cover. If there is a hit then all troops in a 2 inch radius are
    // automatically exposed and no will not receive the +2 benefit of cover
    // in the next turn."
    let order = "loaded = true\nstatus = { order = \"independent-fire\" }";
    let figs = fig("Shot1", "Red", 10.0, 10.0, 90.0, order)
        + &fig("Shot2", "Red", 12.0, 10.0, 90.0, order)
        + &fig("Hid1", "Black", 10.0, 16.0, 270.0, "concealed = true")
        // 0.5 in from Hid1, base to base.
        + &fig("Hid2", "Black", 11.5, 16.0, 270.0, "concealed = true")
        // 3 in from Hid1.
        + &fig("Far", "Black", 14.0, 16.0, 270.0, "concealed = true");
    let mut s = at_phase(state(&figs, "", ""), "shooting", 0);
    set_deck(&mut s, "Black", &["AS"]);
    // Hidden: +2, so 1 to 4 hits for experience 6.
    assert_relative_eq!(
        odd(&s, &fire("Shot2", "Hid2"), "p_hit"),
        0.4,
        epsilon = 1e-12
    );
    // Shot1 hits Hid1 (1), damage 5, the save (an Ace) holds.
    let (after, _) = resolve(&s, &fire("Shot1", "Hid1"), &[1, 5, 1]);
    assert_eq!(sit(named(&after, "Hid2")).exposed_until, Some(2));
    assert_relative_eq!(
        odd(&after, &fire("Shot2", "Hid2"), "p_hit"),
        0.6,
        epsilon = 1e-12
    );
    assert_relative_eq!(
        odd(&after, &fire("Shot2", "Far"), "p_hit"),
        0.4,
        epsilon = 1e-12
    );
    // Still exposed in the next turn, hidden again after it.
    let mut next = after.clone();
    next.turn = 2;
    assert_relative_eq!(
        odd(&next, &fire("Shot2", "Hid2"), "p_hit"),
        0.6,
        epsilon = 1e-12
    );
    next.turn = 3;
    assert_relative_eq!(
        odd(&next, &fire("Shot2", "Hid2"), "p_hit"),
        0.4,
        epsilon = 1e-12
    );
}

#[test]
fn a_routing_figure_surrounded_surrenders_to_the_nearest_opponent() {
    // 8: "A routing figure will not melee or shoot and must move directly
    // toward friendly lines. If surrounded and with no gap between enemy
    // figures, the figure will surrender to the nearest opponent."
    let ring = fig("Caught", "Red", 10.0, 10.0, 90.0, "")
        + &fig("E1", "Black", 11.0, 10.0, 180.0, "")
        + &fig("E2", "Black", 9.5, 10.9, 300.0, "")
        + &fig("E3", "Black", 9.5, 9.1, 60.0, "");
    let mut s = at_phase(state(&ring, "", ""), "melee", 1);
    set_deck(&mut s, "Red", &["9H"]);
    let check = action(
        "morale-check",
        json!({ "figure": "Caught", "reason": "charged" }),
    );
    let (after, _) = resolve(&s, &check, &[1]);
    let caught = named(&after, "Caught");
    assert_eq!(sit(caught).removed.as_deref(), Some("surrendered to E1"));
    assert!(!sit(caught).routed);
    assert_eq!(caught.placement.center_in_table, Point2::new(10.0, 10.0));
    // Two enemies on either side leave him a way out: he routs.
    let pinned = fig("Caught", "Red", 10.0, 10.0, 90.0, "")
        + &fig("E1", "Black", 11.0, 10.0, 180.0, "")
        + &fig("E2", "Black", 9.0, 10.0, 0.0, "");
    let mut s = at_phase(state(&pinned, "", ""), "melee", 1);
    set_deck(&mut s, "Red", &["9H"]);
    let (after, _) = resolve(&s, &check, &[1]);
    assert!(sit(named(&after, "Caught")).routed);
    assert!(sit(named(&after, "Caught")).removed.is_none());
}

#[test]
fn leaving_a_melee_takes_an_activation_check() {
    // 5.5: "Leaving Melee (during any phase): A figure in base-to-base
    // contact with an enemy figure can move away without the 'free swing'
    // that some rules systems would give his opponent BUT it must pass an
    // activation check (can only be modified by any leader within 3
    // inches). If the figure fails the activation roll, then they cannot
    // move out of melee."
    let figs = fig(
        "Pte",
        "Red",
        10.0,
        10.0,
        90.0,
        "status = { order = \"forward-march\" }",
    ) + &fig("Foe", "Black", 10.0, 11.1, 270.0, "");
    let s = at_phase(state(&figs, "", ""), "movement-men", 0);
    let walk = action("move", json!({ "figure": "Pte", "path_in": [[10.0, 7.0]] }));
    assert!(refused(&s, &walk, RefusalKind::Engaged).contains("leave-melee"));
    let leave = action(
        "leave-melee",
        json!({ "figure": "Pte", "to_in": [10.0, 7.0] }),
    );
    // A 5 at or under his 6: he walks away.
    let mut pass = s.clone();
    set_deck(&mut pass, "Red", &["5H"]);
    let (after, _) = run(&pass, &leave, &[1]);
    assert_eq!(
        named(&after, "Pte").placement.center_in_table,
        Point2::new(10.0, 7.0)
    );
    // A 9 fails: he stays, and does not try again this turn.
    let mut fail = s.clone();
    set_deck(&mut fail, "Red", &["9H"]);
    let (after, _) = run(&fail, &leave, &[1]);
    assert_eq!(
        named(&after, "Pte").placement.center_in_table,
        Point2::new(10.0, 10.0)
    );
    assert!(refused(&after, &leave, RefusalKind::AlreadyActed).contains("this turn"));
    // A face card is the leader's modifier: it passes only with a leader
    // within 3 in.
    let mut king = s.clone();
    set_deck(&mut king, "Red", &["KH"]);
    let (after, _) = run(&king, &leave, &[1]);
    assert_eq!(
        named(&after, "Pte").placement.center_in_table,
        Point2::new(10.0, 10.0)
    );
    let led = figs + &fig("Sgt", "Red", 8.0, 9.0, 90.0, "leader = true");
    let mut king = at_phase(state(&led, "", ""), "melee", 0);
    set_deck(&mut king, "Red", &["KH"]);
    let (after, _) = run(&king, &leave, &[1]);
    assert_eq!(
        named(&after, "Pte").placement.center_in_table,
        Point2::new(10.0, 7.0)
    );
}

/// A bolt thrower of experience 3 facing an enemy 10 in off, with `crew`.
fn bolt_thrower(extra: &str) -> GameState {
    let figs = fig(
        "Engine",
        "Red",
        10.0,
        10.0,
        90.0,
        &format!(
            "weapon = \"bolt-thrower\"\nexperience = 3\nstatus = {{ \"loaded-with\" = \"shot\"{extra} }}"
        ),
    )
    .replace("weapon = \"musket\"\n", "")
    .replace("experience = 6\n", "")
        + &fig("Target", "Black", 10.0, 20.0, 270.0, "");
    at_phase(state(&figs, "", ""), "shooting", 0)
}

#[test]
fn the_best_crew_members_skill_aims_the_gun() {
    // 9: "The crew experience level for each artillery figure is assigned
    // by the players. The "to hit" number is the missile skill number of
    // the most experienced gun crew member."
    let shot = action("artillery", json!({ "gun": "Engine", "target": "Target" }));
    let s = bolt_thrower(", crew = \"3,7,5\"");
    assert_relative_eq!(odd(&s, &shot, "p_hit"), 0.7, epsilon = 1e-12);
    // No crew given: the stand's own experience.
    assert_relative_eq!(odd(&bolt_thrower(""), &shot, "p_hit"), 0.3, epsilon = 1e-12);
}

#[test]
fn a_gun_is_unusable_once_its_hit_points_are_spent() {
    // 9: "HP=hit points/experience points for the weapon. This is the
    // damage the weapon can sustain before becoming unusable. If the missile
    // weapon takes less then the HP number in damage it is still in working
    // condition." (The bolt thrower's 6 is a house value.)
    let shot = action("artillery", json!({ "gun": "Engine", "target": "Target" }));
    let s = bolt_thrower(", \"weapon-damage\" = \"4\"");
    rules().check(&s, &shot).expect("4 of 6: it works");
    // The enemy's musket hits the engine for 2 (a 1 to hit, a 2 on the
    // d10), its crew saves on the Ace.
    let mut black = at_phase(s, "shooting", 1);
    let t = named(&black, "Target").id;
    black.figures[t.index()].loaded = true;
    black.figures[t.index()].rules.soldiers_in_time_mut().order =
        Some(spotter::rules::soldiers_in_time::status::Ordered {
            order: Order::IndependentFire,
            passed: true,
            by: None,
            away: false,
        });
    set_deck(&mut black, "Red", &["AH"]);
    let (after, _) = resolve(&black, &fire("Target", "Engine"), &[1, 2, 1]);
    assert_eq!(sit(named(&after, "Engine")).weapon_damage, 6);
    let why = refused(
        &at_phase(after, "shooting", 0),
        &shot,
        RefusalKind::CannotDo,
    );
    assert!(why.contains("unusable"), "{why}");
}

#[test]
fn follow_him_away_from_the_enemy_is_checked_against_the_leader() {
    // 5.2, Follow Him: "Flip a card for an Activation Check and use the
    // worst experience rating instead of the leader's, unless they are
    // moving away from known or suspected enemy positions."
    let figs = fig(
        "Sgt",
        "Red",
        10.0,
        10.0,
        90.0,
        "leader = true\nexperience = 8",
    )
    .replace("experience = 6\n", "")
        + &fig("Pte", "Red", 12.0, 10.0, 90.0, "experience = 3").replace("experience = 6\n", "")
        + &fig("Enemy", "Black", 11.0, 30.0, 270.0, "");
    let mut s = at_phase(state(&figs, "", ""), "command", 0);
    set_deck(&mut s, "Red", &["6H"]);
    let order = |away: bool| {
        action(
            "activate",
            json!({ "leader": "Sgt", "order": "follow-him", "men": ["Pte"], "away": away }),
        )
    };
    // Towards the enemy: the worst, 3, and a 6 fails.
    let (toward, _) = run(&s, &order(false), &[1]);
    assert!(!sit(named(&toward, "Pte")).order.expect("ordered").passed);
    // Away: the leader's 8, and the 6 passes.
    let (away, _) = run(&s, &order(true), &[1]);
    assert!(sit(named(&away, "Pte")).order.expect("ordered").passed);
    let moving = at_phase(away, "movement-men", 0);
    let mv = |y: f64| action("move", json!({ "figure": "Pte", "path_in": [[12.0, y]] }));
    rules()
        .check(&moving, &mv(5.0))
        .expect("back, away from the enemy");
    assert!(refused(&moving, &mv(14.0), RefusalKind::Movement).contains("away from the enemy"));
}

#[test]
fn a_footman_not_engaged_may_dodge_the_horse() {
    // 5.5: "If the figure struck was not engaged in melee by the active
    // rider or another member of the rider's unit, he can make an Action
    // check immediately and use it to dodge out of the way if there is
    // space to the side, or to attack the rider or horse."
    let rider = fig(
        "Rider",
        "Red",
        10.0,
        10.0,
        90.0,
        r#"mount_speed = "canter""#,
    )
    .replace("base = \"foot\"", "base = \"mounted\"");
    let figs = rider + &fig("Foot", "Black", 10.0, 11.8, 270.0, "");
    let mut s = at_phase(state(&figs, "", ""), "melee", 0);
    let impact = |answer: &str| {
        action(
            "horse-impact",
            json!({ "rider": "Rider", "footman": "Foot", "answer": answer }),
        )
    };
    // The horse goes in (5), Foot's action check passes (3): no impact.
    set_deck(&mut s, "Red", &["5H"]);
    set_deck(&mut s, "Black", &["3S"]);
    let (after, ev) = run(&s, &impact("dodge"), &[1, 1]);
    assert_eq!(named(&after, "Foot").wound, None);
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::Rolled { purpose, .. } if purpose == "horse impact"))
    );
    // His check fails (9): the horse is on him (d10 1 at a canter: damage
    // 1 + 2 = 3, his save on 3 holds with the 2).
    let mut fails = s.clone();
    set_deck(&mut fails, "Black", &["9S", "2S"]);
    let (_, ev) = resolve(&fails, &impact("dodge"), &[1, 1, 1, 1]);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Rolled { purpose, .. } if purpose == "horse impact"))
    );
    // Engaged in melee by the rider this turn: no dodge. (Equal totals: the
    // rider's 4 and his +1 against a man on foot, the footman's 5.)
    let (fought, _) = run(
        &s,
        &action("melee", json!({ "a": "Rider", "b": "Foot" })),
        &[4, 5],
    );
    assert!(refused(&fought, &impact("dodge"), RefusalKind::Engaged).contains("engaged"));
}

/// A sergeant and three men, the third 1.5 in from the others but within
/// his command range, facing Black's man 15 in off; `extra` adds figures
/// or terrain. The sergeant's volley fire order has passed.
fn volley_line(extra: &str) -> GameState {
    let figs = fig("Sgt", "Red", 10.0, 10.0, 90.0, "leader = true")
        + &fig("A", "Red", 9.0, 11.0, 90.0, "loaded = true")
        + &fig("B", "Red", 11.0, 11.0, 90.0, "loaded = true")
        + &fig("Stray", "Red", 13.5, 11.0, 90.0, "loaded = true")
        + &fig("Enemy", "Black", 10.0, 25.0, 270.0, "")
        + extra;
    let mut s = at_phase(state(&figs, "", ""), "command", 0);
    set_deck(&mut s, "Red", &["2H"]);
    let order = action(
        "activate",
        json!({ "leader": "Sgt", "order": "volley-fire", "men": ["A", "B", "Stray"] }),
    );
    let (s, _) = run(&s, &order, &[1]);
    at_phase(s, "shooting", 0)
}

fn volley(men: &[&str]) -> Command {
    action("volley", json!({ "men": men }))
}

#[test]
fn a_volley_needs_the_unit_in_formation_seeing_the_enemy_not_in_melee() {
    // 5.2: "Volley Fire is like Follow Me, except it requires the unit to be
    // in formation, with the leader where he can see his men and the enemy.
    // The unit cannot be in melee combat." (House: one body, each man within
    // 1 in of another or of the leader.)
    let s = volley_line("");
    rules()
        .check(&s, &volley(&["A", "B"]))
        .expect("in formation");
    let why = refused(&s, &volley(&["A", "B", "Stray"]), RefusalKind::NoOrder);
    assert!(why.contains("Stray is out of formation"), "{why}");
    // A man without the order does not volley with them.
    let lone = volley_line(&fig("Other", "Red", 12.0, 11.0, 90.0, "loaded = true"));
    let why = refused(&lone, &volley(&["A", "B", "Other"]), RefusalKind::NoOrder);
    assert!(
        why.contains("Other is not under a passed volley fire order"),
        "{why}"
    );
    // A foe in base contact with B: the unit is in melee.
    let engaged = volley_line(&fig("Foe", "Black", 11.0, 12.1, 270.0, ""));
    let why = refused(&engaged, &volley(&["A", "B"]), RefusalKind::Engaged);
    assert!(why.contains("B is in melee with Foe"), "{why}");
    // A ridge between the sergeant and the enemy: he cannot see it.
    let ridge = "\n[[terrain]]\nname = \"ridge\"\nkinds = [\"blocking\"]\npolygon_in = [[0.0, 15.0], [60.0, 15.0], [60.0, 16.0], [0.0, 16.0]]\n";
    let blind = volley_line(ridge);
    let why = refused(&blind, &volley(&["A", "B"]), RefusalKind::OutOfSight);
    assert!(why.contains("sees no enemy"), "{why}");
}

#[test]
fn a_shot_past_a_friend_or_into_a_melee_may_strike_the_friend() {
    // 6.3, "Fire Past Friends or At Enemies Engaged In Melee" (the body is
    // lost: house rule, [fire.house] past_friends).
    let order = "loaded = true\nstatus = { order = \"independent-fire\" }";
    let figs = fig("Pte", "Red", 10.0, 10.0, 90.0, order)
        + &fig("Friend", "Red", 10.0, 13.0, 90.0, "")
        + &fig("Target", "Black", 10.0, 16.0, 270.0, "")
        + &fig("Fighter", "Black", 20.0, 16.0, 270.0, "")
        // In base contact with Fighter, behind him as Pte sees it.
        + &fig("Pal", "Red", 21.2, 16.5, 180.0, "");
    let mut s = at_phase(state(&figs, "", ""), "shooting", 0);
    // Past Friend at 6 in (a hit on 1 to 6): half the hits strike him.
    let past = fire("Pte", "Target");
    assert_relative_eq!(odd(&s, &past, "p_friend_struck"), 0.3, epsilon = 1e-12);
    let (_, ev) = resolve(&s, &past, &[1, 6, 5, 1, 1, 1, 1, 1, 1]);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Note { text } if text.contains("strikes Friend"))),
        "{ev:#?}"
    );
    // Into the melee at 11.7 in (long range +2, a hit on 1 to 4): half the
    // hits strike Pal.
    let shot = fire("Pte", "Fighter");
    assert_relative_eq!(odd(&s, &shot, "p_hit"), 0.4, epsilon = 1e-12);
    assert_relative_eq!(odd(&s, &shot, "p_friend_struck"), 0.2, epsilon = 1e-12);
    // A hit (1), an 8 on the melee die: Pal takes the damage (5; his save
    // on the Ace holds).
    set_deck(&mut s, "Red", &["AH", "2H", "3H"]);
    let (_, ev) = resolve(&s, &shot, &[1, 8, 5, 1, 1, 1]);
    let said = |t: &str| {
        ev.iter()
            .any(|e| matches!(e, Event::Note { text } if text.contains(t)))
    };
    assert!(said("strikes Pal"), "{ev:#?}");
    assert!(said("damage 5: Pal saves on 1 or under: saved"), "{ev:#?}");
    // A 3 on the melee die: the shot strikes Fighter.
    set_deck(&mut s, "Black", &["AS"]);
    let (_, ev) = resolve(&s, &shot, &[1, 3, 5, 1, 1, 1]);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Note { text } if text.contains("Fighter saves"))),
        "{ev:#?}"
    );
}

#[test]
fn parry_one_against_many_and_horses_modify_the_melee() {
    // 7.2 "Base Melee Modifiers": "Charging", "Parry", "One Vs Many",
    // "Attacking Horses Rule", "Horse Panic" (all but charging are headings
    // only: house values of [melee]).
    use spotter::rules::soldiers_in_time::melee_odds;
    let d = data();
    let figs = fig("A", "Red", 10.0, 10.0, 90.0, "")
        + &fig(
            "B",
            "Black",
            10.0,
            11.1,
            270.0,
            "status = { armour = \"9\" }",
        );
    let s = at_phase(state(&figs, "", ""), "melee", 0);
    let melee = |parry: &[&str]| action("melee", json!({ "a": "A", "b": "B", "parry": parry }));
    // Bayonet 2 + experience 6 = 8 each.
    let p = |s: &GameState, c: &Command| odd(s, c, "p_a_wins");
    assert_relative_eq!(
        p(&s, &melee(&["A"])),
        melee_odds(&d, 8 + d.melee.parry_add, 8, 9).p_a_wins,
        epsilon = 1e-12
    );
    // A wins on his parry (10 against 1): he turns the blow, B stays.
    let (after, _) = run(&s, &melee(&["A"]), &[10, 1]);
    assert_eq!(
        named(&after, "B").placement.center_in_table,
        Point2::new(10.0, 11.1)
    );
    // One against many: a second Black man in contact with A.
    let many = figs.clone() + &fig("C", "Black", 11.1, 10.0, 180.0, "");
    let s2 = at_phase(state(&many, "", ""), "melee", 0);
    assert_relative_eq!(
        p(&s2, &melee(&[])),
        melee_odds(&d, 8 + d.melee.one_vs_many_add, 8, 9).p_a_wins,
        epsilon = 1e-12
    );
    // A rider against a man on foot.
    let rider = fig(
        "R",
        "Red",
        10.0,
        10.0,
        90.0,
        "mount_speed = \"walk\"\nstatus = { armour = \"9\" }",
    )
    .replace("base = \"foot\"", "base = \"mounted\"")
        + &fig(
            "Foot",
            "Black",
            10.0,
            11.8,
            270.0,
            "status = { armour = \"9\" }",
        );
    let mut s3 = at_phase(state(&rider, "", ""), "melee", 0);
    let fight = action("melee", json!({ "a": "R", "b": "Foot" }));
    assert_relative_eq!(
        p(&s3, &fight),
        melee_odds(&d, 8 + d.melee.mounted_vs_foot_add, 8, 9).p_a_wins,
        epsilon = 1e-12
    );
    // R loses (1 against 10): damage 8 against armour 9, his morale holds
    // (2), his horse panics (9 over his 6): back 4 in, halted. (A die picks
    // each card from the pile.)
    set_deck(&mut s3, "Red", &["2H", "9H"]);
    let (after, _) = run(&s3, &fight, &[1, 10, 1, 1]);
    let r = named(&after, "R");
    assert_relative_eq!(
        r.placement.center_in_table,
        Point2::new(10.0, 6.0),
        epsilon = 1e-9
    );
    assert_eq!(r.mount_level, Some(0));
    assert!(!sit(r).routed);
}

#[test]
fn a_hidden_enemy_is_spotted_on_a_card_and_gives_himself_away_firing() {
    // 11, "Spotting Hidden Enemies" (the body is lost: house rule, [fire.house]
    // spotting); "Hidden troops receive a +2 because of the benefit of cover."
    let figs = fig("Obs", "Red", 10.0, 10.0, 90.0, "")
        + &fig("Hid", "Black", 10.0, 18.0, 270.0, "concealed = true")
        + &fig("Far", "Black", 30.0, 30.0, 270.0, "concealed = true")
        + &fig(
            "Sniper",
            "Black",
            14.0,
            18.0,
            270.0,
            "concealed = true\nloaded = true\nstatus = { order = \"independent-fire\" }",
        );
    let mut s = at_phase(state(&figs, "", ""), "shooting", 0);
    let spot = |t: &str| action("spot", json!({ "observer": "Obs", "target": t }));
    assert!(refused(&s, &spot("Far"), RefusalKind::OutOfRange).contains("12 in"));
    // A 5 at or under his 6: Hid is spotted to the end of the next turn.
    set_deck(&mut s, "Red", &["5H"]);
    let (after, _) = run(&s, &spot("Hid"), &[1]);
    assert_eq!(sit(named(&after, "Hid")).exposed_until, Some(2));
    assert!(refused(&after, &spot("Sniper"), RefusalKind::AlreadyActed).contains("this turn"));
    // The sniper fires (and misses): he has given himself away.
    let black = at_phase(s, "shooting", 1);
    let (after, _) = resolve(&black, &fire("Sniper", "Obs"), &[10]);
    assert_eq!(sit(named(&after, "Sniper")).exposed_until, Some(2));
}

#[test]
fn a_light_machine_gun_fires_six_shots_with_its_crew_three_alone_a_musket_one() {
    // 6.1, Multiple Shots: "Note: A Lt machine gun has a 2 man crew. If there
    // is only one figure alone because of casualties, then only 3 shots may
    // be taken each turn." (Six with both crew is a house value.)
    let d = data();
    assert_eq!(d.weapons["lmg"].shots_alone, Some(3));
    let order = "loaded = true\nstatus = { order = \"independent-fire\" }";
    let gun = format!("{order}\nweapon = \"lmg\"");
    let base = fig("Gunner", "Red", 10.0, 10.0, 90.0, &gun).replace("weapon = \"musket\"\n", "")
        + &fig(
            "Target",
            "Black",
            10.0,
            20.0,
            270.0,
            "status = { armour = \"9\" }",
        )
        + &fig("Pte", "Red", 5.0, 10.0, 90.0, order);
    let shots = |figs: &str| {
        let mut s = at_phase(state(figs, "", ""), "shooting", 0);
        let mut n = 0;
        while rules().check(&s, &fire("Gunner", "Target")).is_ok() {
            // Each a miss (10); no reload roll after the first.
            s = run(&s, &fire("Gunner", "Target"), &[10]).0;
            n += 1;
            assert!(n <= 10, "no end to the shots");
        }
        assert!(
            refused(&s, &fire("Gunner", "Target"), RefusalKind::AlreadyActed).contains("a turn")
        );
        n
    };
    let crewed = base.clone() + &fig("Mate", "Red", 11.2, 10.0, 90.0, "");
    assert_eq!(shots(&crewed), d.weapons["lmg"].shots.unwrap());
    assert_eq!(shots(&base), 3);
    // A musket fires once a turn.
    let s = at_phase(state(&base, "", ""), "shooting", 0);
    let (after, _) = run(&s, &fire("Pte", "Target"), &[10]);
    assert!(
        refused(&after, &fire("Pte", "Target"), RefusalKind::AlreadyActed).contains("1 a turn")
    );
}

#[test]
fn moving_backwards_keeps_the_facing_and_a_halted_horse_backs_2_in() {
    // 5.1 "Moving Backwards" (the body is lost: house, half the walk); 5.3:
    // "Cavalry previously halted or moving backwards can move backwards at 2
    // inches per turn."
    let d = data();
    assert!(
        d.movement
            .house
            .get("avoiding")
            .is_some_and(|h| h.contains("dodge"))
    );
    let figs = fig(
        "Pte",
        "Red",
        10.0,
        10.0,
        90.0,
        "status = { order = \"forward-march\" }",
    ) + &fig("Enemy", "Black", 10.0, 40.0, 270.0, "");
    let s = at_phase(state(&figs, "", ""), "movement-men", 0);
    let back = |who: &str, to: [f64; 2]| {
        action(
            "move",
            json!({ "figure": who, "path_in": [to], "backwards": true }),
        )
    };
    let (after, _) = run(&s, &back("Pte", [10.0, 7.0]), &[]);
    let pte = named(&after, "Pte");
    assert_eq!(pte.placement.center_in_table, Point2::new(10.0, 7.0));
    assert_relative_eq!(pte.placement.facing_deg, 90.0);
    assert!(refused(&s, &back("Pte", [10.0, 6.5]), RefusalKind::TooFar).contains("3 in"));
    assert!(
        refused(&s, &back("Pte", [10.0, 12.0]), RefusalKind::Movement).contains("does not go back")
    );
    let horse = |speed: &str| {
        fig(
            "Rider",
            "Red",
            10.0,
            10.0,
            90.0,
            &format!("mount_speed = \"{speed}\"\nstatus = {{ order = \"forward-march\" }}"),
        )
        .replace("base = \"foot\"", "base = \"mounted\"")
            + &fig("Enemy", "Black", 10.0, 40.0, 270.0, "")
    };
    let s = at_phase(state(&horse("halted"), "", ""), "movement-horses", 0);
    let (after, _) = run(&s, &back("Rider", [10.0, 8.0]), &[]);
    assert_eq!(
        named(&after, "Rider").placement.center_in_table,
        Point2::new(10.0, 8.0)
    );
    assert!(refused(&s, &back("Rider", [10.0, 7.5]), RefusalKind::TooFar).contains("2 in"));
    let walking = at_phase(state(&horse("walk"), "", ""), "movement-horses", 0);
    assert!(
        refused(&walking, &back("Rider", [10.0, 8.0]), RefusalKind::Movement).contains("halted")
    );
}

#[test]
fn a_horse_jumps_an_obstacle_on_a_horsemanship_card_or_refuses() {
    // 5.3 "Obstacles" (the body is lost: house rule, [movement.house]
    // obstacles).
    let figs = fig(
        "Rider",
        "Red",
        10.0,
        10.0,
        90.0,
        "mount_speed = \"trot\"\nstatus = { order = \"forward-march\" }",
    )
    .replace("base = \"foot\"", "base = \"mounted\"")
        + &fig("Enemy", "Black", 30.0, 40.0, 270.0, "")
        + "\n[[terrain]]\nname = \"wall\"\nkinds = [\"obstacle\"]\npolygon_in = [[5.0, 13.0], [15.0, 13.0], [15.0, 13.3], [5.0, 13.3]]\n";
    let s = at_phase(state(&figs, "", ""), "movement-horses", 0);
    let ride = action(
        "move",
        json!({ "figure": "Rider", "path_in": [[10.0, 18.0]] }),
    );
    let mut refuses = s.clone();
    set_deck(&mut refuses, "Red", &["9H"]);
    let (after, _) = run(&refuses, &ride, &[1]);
    assert_relative_eq!(
        named(&after, "Rider").placement.center_in_table,
        Point2::new(10.0, 13.0),
        epsilon = 1e-9
    );
    let mut jumps = s;
    set_deck(&mut jumps, "Red", &["2H"]);
    let (after, _) = run(&jumps, &ride, &[1]);
    assert_eq!(
        named(&after, "Rider").placement.center_in_table,
        Point2::new(10.0, 18.0)
    );
}

#[test]
fn a_lone_aimed_shot_under_a_volley_order_needs_the_formation() {
    // 5.2: "Volley Fire is like Follow Me, except it requires the unit to be
    // in formation": a man of the volley who fires on his own (`fire`, an
    // aimed shot) is held to the formation as the volley is.
    let s = volley_line("");
    rules()
        .check(&s, &fire("A", "Enemy"))
        .expect("A stands in the formation");
    let why = refused(&s, &fire("Stray", "Enemy"), RefusalKind::NoOrder);
    assert!(why.contains("Stray is out of formation"), "{why}");
}

/// A cannon loaded with ball, facing +y, and a Black man in front of it.
fn cannon(order: &str) -> GameState {
    let figs = fig(
        "Gun",
        "Red",
        10.0,
        10.0,
        90.0,
        &format!("status = {{ \"loaded-with\" = \"ball\"{order} }}"),
    )
    .replace("weapon = \"musket\"", "weapon = \"cannon\"")
        + &fig("Target", "Black", 10.0, 30.0, 270.0, "");
    state(&figs, "", "")
}

#[test]
fn a_gun_moves_1_in_on_a_passed_activation_and_fires_next_turn() {
    // 9: "All such stands can move 1 inch during their movement provided
    // that they pass an activation check but may not fire until the
    // following turn."
    let mv = |to: [f64; 2]| action("move", json!({ "figure": "Gun", "path_in": [to] }));
    let unordered = at_phase(cannon(""), "movement-men", 0);
    refused(&unordered, &mv([10.0, 11.0]), RefusalKind::NoOrder);
    let mut failed = at_phase(cannon(", order = \"forward-march\""), "movement-men", 0);
    let g = failed.figure_named("Gun").expect("gun").id;
    if let Some(o) = failed.figures[g.index()]
        .rules
        .soldiers_in_time_mut()
        .order
        .as_mut()
    {
        o.passed = false;
    }
    assert!(refused(&failed, &mv([10.0, 11.0]), RefusalKind::NoOrder).contains("failed"));
    let s = at_phase(cannon(", order = \"forward-march\""), "movement-men", 0);
    refused(&s, &mv([10.0, 11.5]), RefusalKind::TooFar);
    let (moved, _) = run(&s, &mv([10.0, 11.0]), &[]);
    assert_eq!(
        named(&moved, "Gun").placement.center_in_table,
        Point2::new(10.0, 11.0)
    );
    let shot = action("artillery", json!({ "gun": "Gun", "target": "Target" }));
    let shooting = at_phase(moved, "shooting", 0);
    assert!(refused(&shooting, &shot, RefusalKind::AlreadyActed).contains("fires next turn"));
    let mut next_turn = shooting.clone();
    next_turn.turn += 1;
    assert!(rules().check(&next_turn, &shot).is_ok());
    // A gun that did not move fires this turn.
    let still = at_phase(cannon(""), "shooting", 0);
    assert!(rules().check(&still, &shot).is_ok());
}

#[test]
fn a_gun_fires_within_its_45_degree_arc() {
    // 9: "They have a 45 degree arc from the center of the stand's front."
    let d = data();
    assert_relative_eq!(d.special.artillery_arc_deg, 45.0);
    let at = |x: f64, y: f64| {
        let s = cannon("");
        let mut s = at_phase(s, "shooting", 0);
        let t = s.figure_named("Target").expect("target").id;
        s.figures[t.index()].placement.center_in_table = Point2::new(x, y);
        s
    };
    let shot = action("artillery", json!({ "gun": "Gun", "target": "Target" }));
    // 20 in ahead: 20 degrees off the front is inside the half arc of 22.5.
    let off = |deg: f64| {
        let r = 20.0;
        let a = (90.0_f64 - deg).to_radians();
        at(10.0 + r * a.cos(), 10.0 + r * a.sin())
    };
    assert!(rules().check(&off(0.0), &shot).is_ok());
    assert!(rules().check(&off(20.0), &shot).is_ok());
    assert!(rules().check(&off(-20.0), &shot).is_ok());
    assert!(refused(&off(25.0), &shot, RefusalKind::OutOfArc).contains("45 degree arc"));
    assert!(refused(&off(-25.0), &shot, RefusalKind::OutOfArc).contains("45 degree arc"));
    refused(&off(90.0), &shot, RefusalKind::OutOfArc);
}

#[test]
fn a_shot_needs_a_line_of_sight_through_no_blocking_terrain() {
    // 4: "A player does not have to flip cards for orders for figures when
    // out of the enemies line of sight"; 6.3 "To Hit Modifiers and Related
    // Rules" (the body is lost): a shot needs what the order note names,
    // the line of sight, and blocking terrain stops it.
    let ridge = "\n[[terrain]]\nname = \"ridge\"\nkinds = [\"blocking\"]\npolygon_in = [[20.0, 18.0], [40.0, 18.0], [40.0, 20.0], [20.0, 20.0]]\n";
    let figs = fig(
        "Pte",
        "Red",
        30.0,
        10.0,
        90.0,
        "loaded = true\nstatus = { order = \"independent-fire\" }",
    ) + &fig("Behind", "Black", 30.0, 28.0, 270.0, "")
        + &fig("Beside", "Black", 44.0, 20.0, 270.0, "")
        + ridge;
    let s = at_phase(state(&figs, "", ""), "shooting", 0);
    assert!(refused(&s, &fire("Pte", "Behind"), RefusalKind::OutOfSight).contains("ridge"));
    // The line to Beside passes the ridge's end: he is in sight.
    assert!(rules().check(&s, &fire("Pte", "Beside")).is_ok());
    // The same shot without the ridge.
    let open = at_phase(state(&figs.replace(ridge, ""), "", ""), "shooting", 0);
    assert!(rules().check(&open, &fire("Pte", "Behind")).is_ok());
}

#[test]
fn the_flag_bearer_does_not_fight() {
    // 10.3: "A Flag barer is a soldier that holds your banner/flag in
    // battle. He doesn't fight, but he helps your troops rally and fight."
    let figs = fig(
        "Flag",
        "Red",
        10.0,
        10.0,
        90.0,
        "loaded = true\nstatus = { flag = \"true\", order = \"independent-fire\" }",
    ) + &fig(
        "Pte",
        "Red",
        12.0,
        10.0,
        90.0,
        "loaded = true\nstatus = { order = \"independent-fire\" }",
    ) + &fig("E", "Black", 10.0, 11.2, 270.0, "")
        + &fig("E2", "Black", 12.0, 11.2, 270.0, "");
    let s = at_phase(state(&figs, "", ""), "shooting", 0);
    refused(&s, &fire("Flag", "E"), RefusalKind::CannotDo);
    assert!(
        rules().check(&s, &fire("Pte", "E2")).is_ok(),
        "a soldier fires"
    );
    let s = at_phase(s, "melee", 0);
    let melee = |a: &str, b: &str| action("melee", json!({ "a": a, "b": b }));
    assert!(refused(&s, &melee("Flag", "E"), RefusalKind::CannotDo).contains("does not fight"));
    assert!(
        rules().check(&s, &melee("Pte", "E2")).is_ok(),
        "a soldier fights"
    );
}
