/**
 * The example plugin of docs/plugins.md: a model (`notacliente`, table `notas_clientes`) and a
 * custom endpoint (`GET /api/3/clienteNotas/{codcliente}`). It reaches the core only through what
 * its entry function is given and the `PluginContext` of its routes.
 */
import type { PluginApi, PluginDefinition } from '../../src/plugins/plugin-api.ts';

export default function customerNotes({ defineModel, f, AppError }: PluginApi): PluginDefinition {
  const note = defineModel({
    name: 'NotaCliente',
    table: 'notas_clientes',
    fields: {
      codcliente: f.string(10, { notNull: true, references: f.ref('clientes', 'codcliente', 'CASCADE') }),
      fecha: f.timestamp({ initial: (clock) => clock.timestamp() }),
      id: f.serial(),
      nick: f.string(50),
      texto: f.text({ notNull: true }),
    },
  });

  return {
    models: [note],
    routes: (ctx) => [
      {
        method: 'GET',
        path: 'clienteNotas/:codcliente',
        resource: 'clienteNotas',
        async handler(request) {
          const { codcliente } = request.params as { codcliente: string };
          const customer = await ctx.db.selectFrom('clientes').select(['codcliente', 'nombre']).where('codcliente', '=', codcliente).executeTakeFirst();
          if (!customer) throw new AppError('record-not-found');
          const notes = await ctx.db.selectFrom('notas_clientes').select(['id', 'fecha', 'nick', 'texto']).where('codcliente', '=', codcliente).orderBy('id').execute();
          return { codcliente: customer.codcliente, nombre: customer.nombre, notes };
        },
      },
    ],
  };
}
