import type { ActivityEntry } from '@brand/proto/activity/v1';
import { formatTime } from '../../views/format';
import { Layout, type Viewer } from '../../views/layout';

export function ActivityPage(props: {
  viewer: Viewer;
  entries: ActivityEntry[];
  unavailable: string[];
}) {
  return (
    <Layout title="Activity" viewer={props.viewer} section="activity">
      <h1>Activity</h1>
      <p>
        Who did what in the Developers area, newest first: keys, receivers and deliveries, plans,
        members and sign-ins. Each service keeps the log of the changes it owns.
      </p>
      {props.unavailable.length > 0 && (
        <p class="notice warn" role="status">
          Not shown right now (the service did not answer): {props.unavailable.join(', ')}.
        </p>
      )}
      <table>
        <caption class="hint">The latest {props.entries.length} entries</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.length === 0 && (
            <tr>
              <td colSpan={4}>Nothing yet.</td>
            </tr>
          )}
          {props.entries.map((e) => (
            <tr>
              <td>{formatTime(e.created_at)}</td>
              <td>{e.actor_email}</td>
              <td>
                <code>{e.action}</code>
              </td>
              <td>
                {e.summary} {e.subject_id && <code class="hint">{e.subject_id}</code>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
}
