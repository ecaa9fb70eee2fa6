import { useId } from 'preact/hooks';

/** A labelled multi-line field with its error, like TextField. */
export function TextArea({
  label,
  name,
  value,
  onValue,
  error,
  rows = 4,
}: {
  label: string;
  name: string;
  value: string;
  onValue: (v: string) => void;
  error?: string;
  rows?: number;
}) {
  const id = useId();
  return (
    <div class={`field${error ? ' field--invalid' : ''}`}>
      <label for={id}>{label}</label>
      <textarea
        id={id}
        name={name}
        rows={rows}
        value={value}
        onInput={(e) => onValue((e.currentTarget as HTMLTextAreaElement).value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error && (
        <p class="field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
