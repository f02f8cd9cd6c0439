import type { Plan } from '@brand/proto/plans/v1';
import { CAMPAIGN_TYPES, PLAN_STATUSES, type PlanStatusName } from '@brand/shared/enums';
import { formatTime } from '../../views/format';
import { Layout, Notice, type Viewer } from '../../views/layout';
import { DataTable } from '../../views/dataTable';
import { PostButton } from '../../views/postButton';

/** Centavos (a decimal string from int64) as "PHP 25,000.50". */
function php(centavos: string | number): string {
  const n = BigInt(String(centavos));
  const pesos = (n / 100n).toLocaleString('en-US');
  return `PHP ${pesos}.${String(n % 100n).padStart(2, '0')}`;
}

export function PlansPage(props: {
  viewer: Viewer;
  status: PlanStatusName;
  plans: Plan[];
  pendingCount: number;
  pendingLimit: number;
  nextPageToken?: string;
  canCancel: boolean;
  notice?: string;
}) {
  const { viewer } = props;
  const base = `/brands/${viewer.brandId}/plans`;
  return (
    <Layout title="Campaign plans" viewer={viewer} section="plans">
      <h1>Campaign plans</h1>
      <p>
        Drafts prepared through the API or an assistant, waiting for a person at the brand to review
        them in the workspace. Nothing here publishes, funds or approves anything.
      </p>
      <p>
        <strong>
          {props.pendingCount} of {props.pendingLimit}
        </strong>{' '}
        pending plans (a new plan is refused while {props.pendingLimit} are pending).
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {!props.canCancel && (
        <Notice>
          Only brand owners cancel plans. You are a {viewer.role} of this brand: you can read them.
        </Notice>
      )}
      <nav aria-label="Plan status">
        <ul class="actions">
          {PLAN_STATUSES.names.map((s) => (
            <li>
              <a
                href={`${base}?status=${s}`}
                aria-current={s === props.status ? 'page' : undefined}
              >
                {s[0]!.toUpperCase() + s.slice(1)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <DataTable
        label="Plans"
        caption={<>{props.status} plans, newest first</>}
        columns={['Plan', 'Type', 'Dates', 'Budget', 'Creative', 'Notes (members only)', 'Actions']}
      >
        {props.plans.length === 0 && (
          <tr>
            <td colSpan={7}>No {props.status} plans.</td>
          </tr>
        )}
        {props.plans.map((p) => (
          <tr>
            <td>
              <strong>{p.title}</strong>
              <br />
              {p.goal}
              <br />
              <code class="hint">{p.id}</code>
              <br />
              <span class="hint">prepared {formatTime(p.created_at)}</span>
            </td>
            <td>{CAMPAIGN_TYPES.fromProto(p.campaign_type)}</td>
            <td>
              planned for {p.planned_for}
              <br />
              review on {p.review_on}
            </td>
            <td>{php(p.planning_budget_amount)}</td>
            <td>
              {p.summary && <p>{p.summary}</p>}
              {p.brief && <p>{p.brief}</p>}
              {p.requirements.length > 0 && <p>Requirements: {p.requirements.join('; ')}</p>}
              {p.platforms.length > 0 && <p>Platforms: {p.platforms.join(', ')}</p>}
            </td>
            <td>{p.notes ?? ''}</td>
            <td>
              <code>{p.review_path}</code>
              {props.canCancel && props.status === 'pending' && (
                <PostButton
                  action={`${base}/${p.id}/cancel`}
                  csrfToken={viewer.csrfToken}
                  kind="danger"
                  label={`Cancel plan ${p.title}`}
                >
                  Cancel plan
                </PostButton>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      {props.nextPageToken && (
        <p>
          <a
            href={`${base}?status=${props.status}&page=${encodeURIComponent(props.nextPageToken)}`}
          >
            Older plans
          </a>
        </p>
      )}
      <p class="hint">
        A cancelled plan stays cancelled: retrying its request_id is a request_conflict.
      </p>
    </Layout>
  );
}
