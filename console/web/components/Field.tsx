import type { ComponentChildren, JSX } from 'preact';
import { useId } from 'preact/hooks';

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'value' | 'onInput' | 'label'> & {
  label: string;
  value: string;
  onValue: (value: string) => void;
  /** The API's message for this field, shown under it and announced with it. */
  error?: string;
  hint?: ComponentChildren;
  name: string;
};

/** A labelled text input with its hint and its error (aria-invalid, aria-describedby). */
export function TextField({ label, value, onValue, error, hint, name, ...rest }: InputProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${error ? ' field--invalid' : ''}`}>
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        value={value}
        onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described}
        {...rest}
      />
      {hint && (
        <p class="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

type SelectProps = {
  label: string;
  name: string;
  value: string;
  onValue: (value: string) => void;
  options: ReadonlyArray<{ value: string; label: string }>;
  error?: string;
  disabled?: boolean;
};

export function SelectField({ label, name, value, onValue, options, error, disabled }: SelectProps) {
  const id = useId();
  return (
    <div class={`field${error ? ' field--invalid' : ''}`}>
      <label for={id}>{label}</label>
      <select
        id={id}
        name={name}
        value={value}
        disabled={disabled}
        onChange={(e) => onValue((e.currentTarget as HTMLSelectElement).value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {error && (
        <p class="field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export function CheckboxField({
  label,
  checked,
  onChecked,
  disabled,
  name,
}: {
  label: string;
  checked: boolean;
  onChecked: (v: boolean) => void;
  disabled?: boolean;
  name: string;
}) {
  const id = useId();
  return (
    <div class="field field--checkbox">
      <input
        id={id}
        name={name}
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChecked((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{label}</label>
    </div>
  );
}
