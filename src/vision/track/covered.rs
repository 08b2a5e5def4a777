//! Step 1 of [`Tracker::update`]: figures under a hand hold their state.
//!
//! A figure the detector's hand regions cover is neither moved nor removed
//! this frame. If a detection of the same kind lies under the hand close to
//! where it stood (within `covered_confirm_radius_in`), the figure counts as
//! seen there, and a held figure is put back (`placed`). Other detections
//! under the hand are left alone until the hand has gone.

use nalgebra::Vector2;

use super::frame::Frame;
use super::{FigureState, TrackEvent, TrackEventKind, Tracker};

impl Tracker {
    /// Holds the figures under a hand, seeing them in the covered detections
    /// of their kind nearby. Returns which detections were used so.
    pub(super) fn hold_covered(&mut self, f: &Frame, events: &mut Vec<TrackEvent>) -> Vec<bool> {
        let mut det_used = vec![false; f.dets.len()];
        for t in self.tracks.iter_mut().filter(|t| t.live()) {
            if !f.covered(t.position) {
                continue;
            }
            let nearest = (0..f.dets.len())
                .filter(|&k| f.det_covered[k] && !det_used[k] && t.alike(f.dets[k]))
                .map(|k| (k, (f.dets[k].center_in_table - t.position).norm()))
                .filter(|&(_, d)| d <= f.p.covered_confirm_radius_in)
                .min_by(|a, b| a.1.total_cmp(&b.1));
            let Some((k, _)) = nearest else {
                continue;
            };
            det_used[k] = true;
            t.see(f.index);
            t.velocity_in_per_s = Vector2::zeros();
            t.hand_anchor = None;
            t.under_hand_at = None;
            if t.state == FigureState::Held {
                t.state = FigureState::OnTable;
                if t.confirmed {
                    events.push(TrackEvent {
                        id: t.id,
                        kind: TrackEventKind::Placed {
                            from_in_table: Some(t.position),
                            to_in_table: t.position,
                        },
                    });
                }
            }
        }
        det_used
    }
}
