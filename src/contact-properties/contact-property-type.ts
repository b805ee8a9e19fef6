/** The types a contact property can have (persisted as smallint: values never change). */

export enum ContactPropertyType {
  Text = 1,
  Number = 2,
  Select = 3,
  Date = 4,
}
