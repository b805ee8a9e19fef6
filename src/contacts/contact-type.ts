/** Person or company (persisted as smallint: values never change). */

export enum ContactType {
  Individual = 1,
  Business = 2,
}
