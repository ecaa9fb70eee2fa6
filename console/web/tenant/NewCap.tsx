import { useState } from 'preact/hooks';
import { post } from '../api/client.ts';
import { fieldErrors } from '../api/errors.ts';
import { useAction, useResource } from '../app/hooks.ts';
import { navigate } from '../app/router.ts';
import { useTenant } from '../app/tenantSession.ts';
import { ErrorMessage, Notice } from '../components/Alert.tsx';
import { SelectField, TextField } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { capPath } from './caps.ts';
import { statusLabel } from './format.ts';
import { TextArea } from './TextArea.tsx';
import { CAP_TARGET_TYPES, type Cap, type Member } from './types.ts';

/** Create a CAP: from a pattern (target pre-filled from the query) or free-standing. */
export function TenantNewCap({ query }: { query: URLSearchParams }) {
  const { can } = useTenant();
  const [targetType, setTargetType] = useState(query.get('target_type') ?? 'other');
  const [targetId, setTargetId] = useState(query.get('target_id') ?? '');
  const [title, setTitle] = useState(query.get('title') ?? '');
  const [problem, setProblem] = useState('');
  const [owner, setOwner] = useState('');
  const [due, setDue] = useState('');
  const members = useResource<Member[]>(can('members.read') ? '/members' : null);
  const create = useAction(() =>
    post<Cap>('/remediation/caps', {
      target_type: targetType,
      target_id: targetId.trim(),
      title: title.trim(),
      problem_statement: problem.trim() || undefined,
      owner_user_id: owner || undefined,
      due_date: due || undefined,
    }),
  );
  const errors = fieldErrors(create.error);
  if (!can('caps.write')) {
    return (
      <>
        <h1>New corrective action plan</h1>
        <Notice tone="warning">Your role cannot create plans (it lacks the caps.write permission).</Notice>
      </>
    );
  }
  const fromPattern = query.get('target_type') === 'pattern' && query.get('target_id');
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    const cap = await create.run();
    if (cap) navigate(capPath(cap), { replace: true });
  };
  return (
    <>
      <p>
        <Link href={fromPattern ? `/insights/patterns/${encodeURIComponent(targetId)}` : '/remediation/caps'}>← Back</Link>
      </p>
      <h1>New corrective action plan</h1>
      <form class="card" onSubmit={onSubmit} noValidate>
        <SelectField
          label="Target type"
          name="target_type"
          value={targetType}
          onValue={setTargetType}
          options={CAP_TARGET_TYPES.map((t) => ({ value: t, label: statusLabel(t) }))}
          error={errors.target_type}
        />
        <TextField
          label="Target id"
          name="target_id"
          required
          value={targetId}
          onValue={setTargetId}
          error={errors.target_id}
          hint="The pattern, record, source or recommendation id the plan addresses; anything that names it for type Other."
        />
        <TextField label="Title" name="title" required maxLength={200} value={title} onValue={setTitle} error={errors.title} />
        <TextArea label="Problem statement (optional)" name="problem_statement" value={problem} onValue={setProblem} error={errors.problem_statement} />
        {members.data && (
          <SelectField
            label="Owner (optional)"
            name="owner_user_id"
            value={owner}
            onValue={setOwner}
            options={[{ value: '', label: 'Nobody yet' }, ...members.data.map((m) => ({ value: m.user_id, label: m.full_name || m.email }))]}
            error={errors.owner_user_id}
          />
        )}
        <TextField label="Due date (optional)" name="due_date" type="date" value={due} onValue={setDue} error={errors.due_date} />
        {Object.keys(errors).length === 0 && <ErrorMessage error={create.error} />}
        <button type="submit" disabled={create.pending}>
          Create the plan
        </button>
      </form>
    </>
  );
}
