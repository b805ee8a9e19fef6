/** What a channel can do (persisted as smallint: values never change). */

export enum ChannelType {
  PhoneNumber = 1,
  WhatsApp = 2,
  PhoneNumberAndWhatsapp = 3,
}
