import type { Model } from './define-model.ts';

/**
 * The set of models of one app. Everything model-shaped (tables, routes, schema output, filters,
 * the root listing) is derived from here; plugins add models before the app starts.
 */
export class ModelRegistry {
  readonly models: Model[] = [];
  #byName = new Map<string, Model>();
  #byTable = new Map<string, Model>();

  /** Takes the models in any order: tables are kept referenced-first, as schema sync needs them. */
  constructor(models: Model[] = []) {
    for (const model of byReferences(models)) this.add(model);
  }

  add(model: Model): void {
    for (const name of [model.resource, model.alias]) {
      const clash = this.#byName.get(name);
      if (clash && clash !== model) throw new Error(`resource name "${name}" used by ${clash.name} and ${model.name}`);
    }
    if (this.#byTable.has(model.table)) throw new Error(`table "${model.table}" declared twice`);
    this.models.push(model);
    this.#byName.set(model.resource, model);
    this.#byName.set(model.alias, model);
    this.#byTable.set(model.table, model);
  }

  /** Looks a resource model up by canonical name or alias (internal models are not resources). */
  get(resource: string): Model | undefined {
    const model = this.#byName.get(resource);
    return model && !model.internal ? model : undefined;
  }

  /**
   * The canonical resource name of a name that may be a model's alias (`clientes` -> `cliente`);
   * any other name (a custom endpoint, an unknown resource) as given. Access rules are keyed by it.
   */
  canonical(resource: string): string {
    return this.get(resource)?.resource ?? resource;
  }

  /** Models exposed as API resources. */
  resources(): Model[] {
    return this.models.filter((model) => !model.internal);
  }

  byTable(table: string): Model | undefined {
    return this.#byTable.get(table);
  }

  /** Fails fast when a foreign key points at a table or column no model declares. */
  check(): void {
    for (const model of this.models) {
      for (const [name, field] of Object.entries(model.fields)) {
        const ref = field.references;
        if (!ref) continue;
        const target = this.#byTable.get(ref.table);
        if (!target || !target.fields[ref.field]) {
          throw new Error(`${model.table}.${name} references unknown ${ref.table}.${ref.field}`);
        }
      }
    }
  }
}

/**
 * The models ordered so that a table comes after the tables it references (a depth-first
 * topological sort, stable otherwise). A cycle of references (a table referring to itself, or two
 * tables to each other) is broken where it closes: those foreign keys are added once both exist.
 */
export function byReferences(models: Model[]): Model[] {
  const byTable = new Map(models.map((model) => [model.table, model]));
  const ordered: Model[] = [];
  const state = new Map<Model, 'visiting' | 'done'>();
  const visit = (model: Model) => {
    if (state.has(model)) return;
    state.set(model, 'visiting');
    for (const field of Object.values(model.fields)) {
      const target = field.references ? byTable.get(field.references.table) : undefined;
      if (target && target !== model) visit(target);
    }
    state.set(model, 'done');
    ordered.push(model);
  };
  for (const model of models) visit(model);
  return ordered;
}
