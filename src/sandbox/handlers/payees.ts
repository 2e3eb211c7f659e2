/**
 * Payees and payee locations.
 */
import type { z } from 'zod';
import type * as B from '../../api/schemas/bodies.js';
import { createPayee } from '../domain/payees.js';
import { badRequest, resourceNotFound } from '../errors.js';
import * as R from '../../api/read/entities.js';
import { requirePayee, sinceKnowledge, visible } from './common.js';
import type { Handler } from './context.js';

export const payeeHandlers: Record<string, Handler> = {
  getPayees: (ctx) => {
    const b = ctx.budget;
    const since = sinceKnowledge(ctx);
    const payees = [...b.rec.payees.values()].filter((p) => visible(p.knowledge, p.deleted, since));
    return { data: { payees: payees.map(R.payee), server_knowledge: b.knowledge } };
  },

  getPayeeById: (ctx) => ({ data: { payee: R.payee(requirePayee(ctx.budget, ctx.params.payee_id!)) } }),

  createPayee: (ctx) => {
    const b = ctx.budget;
    const { payee: input } = ctx.body as z.infer<typeof B.PostPayeeWrapper>;
    const name = input.name.trim();
    if (!name) throw badRequest('payee.name must not be blank');
    const payee = b.change(() => createPayee(b, name));
    return { status: 201, data: { payee: R.payee(payee), server_knowledge: b.knowledge } };
  },

  updatePayee: (ctx) => {
    const b = ctx.budget;
    const payee = requirePayee(b, ctx.params.payee_id!);
    const { payee: input } = ctx.body as z.infer<typeof B.PatchPayeeWrapper>;
    if (payee.transfer_account_id) throw badRequest('a transfer payee is named after its account and cannot be renamed');
    if (input.name !== undefined) {
      const name = input.name.trim();
      if (!name) throw badRequest('payee.name must not be blank');
      b.change(() => {
        b.stamp(payee);
        payee.name = name;
      });
    }
    return { data: { payee: R.payee(payee), server_knowledge: b.knowledge } };
  },

  getPayeeLocations: (ctx) => ({
    data: { payee_locations: [...ctx.budget.rec.payee_locations.values()].filter((l) => !l.deleted).map(R.payeeLocation) },
  }),

  getPayeeLocationById: (ctx) => {
    const l = ctx.budget.rec.payee_locations.get(ctx.params.payee_location_id!);
    if (!l || l.deleted) throw resourceNotFound(`payee location ${ctx.params.payee_location_id} was not found in this budget`);
    return { data: { payee_location: R.payeeLocation(l) } };
  },

  getPayeeLocationsByPayee: (ctx) => {
    const payee = requirePayee(ctx.budget, ctx.params.payee_id!);
    const locations = [...ctx.budget.rec.payee_locations.values()].filter((l) => !l.deleted && l.payee_id === payee.id);
    return { data: { payee_locations: locations.map(R.payeeLocation) } };
  },
};
