/** A labelled `<select>` of `options`, each a value (`name`) and what it shows (`label`). */
export function Picker<T extends string>({
  name,
  label,
  value,
  options,
  onChange,
}: {
  name: string;
  label: string;
  value: T;
  options: ReadonlyArray<{ name: T; label: string }>;
  onChange: (value: T) => void;
}) {
  return (
    <label>
      {label}
      <select name={name} value={value} onChange={(event) => onChange(event.currentTarget.value as T)}>
        {options.map((option) => (
          <option key={option.name} value={option.name}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
